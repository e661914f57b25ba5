/**
 * The connection plumbing every store shares: the {@code Database} transaction runner and its two
 * sources (a {@code DataSource} or one SQLite connection), the database clock, the statement cache,
 * the connection wrappers that lend a transaction to an effect and guard it against misuse, the
 * caller's own transactions run on such a connection, the opening of SQLite files and the schema
 * migrator. What differs between databases it asks of {@code internal.dialect}, the one internal
 * package it depends on.
 *
 * <p>Not exported by the module; nothing here is public API.
 */
package dev.onceonly.internal.db;
