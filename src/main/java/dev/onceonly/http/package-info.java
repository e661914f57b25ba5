/**
 * The {@code Idempotency-Key} header at the edge of an HTTP API: a Servlet filter ({@link
 * dev.onceonly.http.IdempotencyFilter}) that runs a request's handler once per key and answers its
 * retries with the stored response. Needs the Jakarta Servlet 6 API, which the container brings.
 * See docs/http.md.
 */
package dev.onceonly.http;
