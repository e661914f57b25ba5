/**
 * The operator's web page: a Servlet ({@link dev.onceonly.dashboard.DashboardServlet}) that shows
 * what a store holds (counts, queues, dead letters, unknown outcomes, schedules, receipts, the
 * audit) and settles it through the public maintenance, queue, schedule and external-effect APIs.
 * Rendered on the server, with its stylesheet in the jar and no script. Needs the Jakarta Servlet 6
 * API, which the container brings. See docs/dashboard.md.
 */
package dev.onceonly.dashboard;
