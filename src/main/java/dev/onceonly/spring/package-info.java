/**
 * Spring Boot support: auto-configuration of an {@link dev.onceonly.OnceOnly} on the application's
 * data source, configured by {@code onceonly.*} properties; calls inside a {@code @Transactional}
 * method that join the Spring transaction, with no {@link java.sql.Connection} in the application's
 * code; handler beans run by workers that start with the context and stop gracefully with it; the
 * reconciler and retention on a schedule; and an Actuator health indicator.
 *
 * <p>Spring Boot (3.5 or 4.0) is an optional dependency of the library: the application brings it,
 * and nothing in this package is loaded without it. See {@code docs/spring.md}.
 */
package dev.onceonly.spring;
