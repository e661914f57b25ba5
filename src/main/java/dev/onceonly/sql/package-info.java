/**
 * The storage seam: which SQL dialect a store speaks, and the schema migrations shipped as plain
 * {@code .sql} resources under {@code dev/onceonly/sql/<dialect>/} for users who run Flyway or
 * Liquibase themselves (their {@code ${prefix}} placeholder is the table prefix).
 */
package dev.onceonly.sql;
