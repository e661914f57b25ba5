/**
 * Micrometer meters for OnceOnly: {@link dev.onceonly.micrometer.OnceOnlyMetrics} counts and times
 * what the events report, and {@link dev.onceonly.micrometer.StoreGauges} samples the rows that say
 * whether anything is stuck. Needs {@code io.micrometer:micrometer-core} on the class path; nothing
 * else of the library loads this package.
 */
package dev.onceonly.micrometer;
