/**
 * An optional Redis Streams transport (the report workshop's register-then-publish pipeline) in
 * front of the same receipt core: a {@link dev.onceonly.redis.RedisProducer} registers an intent
 * and then adds it to a stream, a {@link dev.onceonly.redis.RedisWorker} reads it in a consumer
 * group and applies it through the {@link dev.onceonly.ReceiptStore} before acknowledging it,
 * recovers the entries of consumers that died, and keeps what it cannot process as rejections.
 * {@link dev.onceonly.redis.RedisStream#publisher()} lets the {@link dev.onceonly.Reconciler}
 * publish again the intents that have no receipt.
 *
 * <p>Needs {@code redis.clients:jedis} on the class or module path (an optional dependency of this
 * library) and a Redis server of version 6.2 or later. See {@code docs/redis.md} for the
 * persistence settings the guarantees need.
 */
package dev.onceonly.redis;
