/**
 * The receipt core: the SQL receipt, intent and rejection stores, what they share ({@code
 * StoreContext}: the database, the statements, the request checks, the clock and the retention
 * settings), the checks of identifiers and requests, and the comparison of a result with its JSON
 * round trip. Built on {@link dev.onceonly.internal.db} and {@link dev.onceonly.internal.jcs}.
 *
 * <p>Not exported by the module; nothing here is public API.
 */
package dev.onceonly.internal.receipts;
