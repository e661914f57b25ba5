/**
 * The dialect seam: everything that differs between the databases OnceOnly speaks, one class per
 * database behind the {@code SqlDialect} interface. How a write transaction starts, commits and
 * rolls back, which failures may simply run again, how steps on a key without a row are kept apart,
 * how instants are stored, and the few statements whose SQL is not the same on every database (the
 * queue's claim, a clamped decrement, a null-safe comparison, a table lookup, the server's clock).
 * Every other statement is written once, in the standard SQL both databases read.
 *
 * <p>Adding a database means adding one class here, one constant to {@link
 * dev.onceonly.sql.Dialect} and its migration scripts; no store changes. Depends on no other
 * internal package.
 *
 * <p>Not exported by the module; nothing here is public API.
 */
package dev.onceonly.internal.dialect;
