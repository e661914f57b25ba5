/**
 * The SQL implementation of {@link dev.onceonly.maintenance.Maintenance}. Not exported by the
 * module; nothing here is public API.
 */
package dev.onceonly.internal.maintenance;
