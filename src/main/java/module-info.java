/**
 * OnceOnly: make a business effect happen exactly once per intent.
 *
 * <p>The root package holds the public API; the {@code dev.onceonly.internal} packages are not
 * exported.
 */
module dev.onceonly {
  requires transitive java.sql;
  requires transitive com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires org.xerial.sqlitejdbc;
  requires static com.cronutils;
  requires static redis.clients.jedis;
  requires static info.picocli;
  requires static org.junit.jupiter.api;
  requires static jakarta.servlet;
  requires static org.eclipse.jetty.server;
  requires static org.eclipse.jetty.http;
  requires static org.eclipse.jetty.util;
  requires static org.eclipse.jetty.ee10.servlet;
  requires static micrometer.core;
  requires static io.opentelemetry.api;
  requires static io.opentelemetry.context;
  requires static spring.beans;
  requires static spring.boot;
  requires static spring.boot.actuator;
  requires static spring.boot.autoconfigure;
  requires static spring.boot.health;
  requires static spring.context;
  requires static spring.core;
  requires static spring.jdbc;
  requires static spring.tx;
  requires static spring.orm;
  requires static jakarta.persistence;
  requires static spring.security.core;
  requires static com.zaxxer.hikari;

  exports dev.onceonly;
  exports dev.onceonly.dashboard;
  exports dev.onceonly.events;
  exports dev.onceonly.external;
  exports dev.onceonly.http;
  exports dev.onceonly.maintenance;
  exports dev.onceonly.micrometer;
  exports dev.onceonly.otel;
  exports dev.onceonly.queue;
  exports dev.onceonly.redis;
  exports dev.onceonly.spring;
  exports dev.onceonly.sql;
  exports dev.onceonly.testing;
  exports dev.onceonly.workflow;

  // The migration scripts, for Flyway and Liquibase on the module path: a named module's
  // resources are encapsulated unless their package is open. These packages hold only scripts.
  opens dev.onceonly.sql.sqlite;
  opens dev.onceonly.sql.postgresql;

  // Spring reads the auto-configuration and binds the properties records reflectively.
  opens dev.onceonly.spring to
      spring.beans,
      spring.context,
      spring.core,
      spring.boot;

  // The command-line tool is not API: picocli reads its commands and Jackson its records.
  opens dev.onceonly.cli to
      info.picocli;
  opens dev.onceonly.cli.demo to
      com.fasterxml.jackson.databind;
}
