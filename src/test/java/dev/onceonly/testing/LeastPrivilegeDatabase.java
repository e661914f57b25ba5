package dev.onceonly.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A database of its own on the {@link EmbeddedPg} server whose schema {@code app} belongs to {@code
 * postgres} and holds the OnceOnly tables, migrated by that owner, plus a login role holding
 * exactly the {@link #GRANTS} docs/postgresql.md gives an application. Nobody else may create
 * anything in the database ({@code CREATE} on {@code public} revoked from {@code PUBLIC}).
 *
 * <p>{@link #close()} closes the pools it opened.
 */
public final class LeastPrivilegeDatabase implements AutoCloseable {
  /**
   * The grants docs/postgresql.md lists, for the role {@code %1$s} on the database {@code %2$s}.
   */
  public static final List<String> GRANTS =
      List.of(
          "GRANT CONNECT ON DATABASE %2$s TO %1$s",
          "GRANT USAGE ON SCHEMA app TO %1$s",
          "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA app TO %1$s");

  private static final AtomicInteger ROLES = new AtomicInteger();
  private static final String PASSWORD = "app-secret";

  private final String database;
  private final String role;
  private final HikariDataSource owner;
  private final HikariDataSource application;

  private LeastPrivilegeDatabase(String database, String role, HikariDataSource owner) {
    this.database = database;
    this.role = role;
    this.owner = owner;
    this.application = pool();
  }

  /** Creates the database, migrates it as the owner and creates the role with its grants. */
  public static LeastPrivilegeDatabase create() throws SQLException {
    String database = EmbeddedPg.newDatabase("least_privilege");
    String role = "app_rw_" + ROLES.incrementAndGet();
    exec(database, "REVOKE ALL ON DATABASE " + database + " FROM PUBLIC");
    exec(database, "REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    exec(database, "CREATE SCHEMA app");
    HikariDataSource owner = EmbeddedPg.pool(database, 2, "app");
    OnceOnly.builder().dataSource(owner).build().close(); // the owner applies the migrations
    exec(database, "CREATE ROLE " + role + " LOGIN PASSWORD '" + PASSWORD + "'");
    for (String grant : GRANTS) {
      exec(database, String.format(grant, role, database));
    }
    return new LeastPrivilegeDatabase(database, role, owner);
  }

  /** Returns the role's name. */
  public String role() {
    return role;
  }

  /** Returns a pool logged in as the role, its sessions in schema {@code app}. */
  public HikariDataSource application() {
    return application;
  }

  /** Returns a JDBC URL logged in as the role, in schema {@code app}, as the CLI takes it. */
  public String applicationUrl() {
    return serverUrl() + "?user=" + role + "&password=" + PASSWORD + "&currentSchema=app";
  }

  /** Runs a statement as the owner. */
  public void exec(String sql) throws SQLException {
    exec(database, sql);
  }

  /** Returns the one number a query returns, run as the owner. */
  public long ownerCount(String sql) {
    try (Connection c = EmbeddedPg.connect(database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private String serverUrl() {
    // not EmbeddedPg.url: its user=postgres parameter would win over the pool's user
    return "jdbc:postgresql://localhost:" + EmbeddedPg.server().getPort() + "/" + database;
  }

  private HikariDataSource pool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(serverUrl());
    config.setUsername(role);
    config.setPassword(PASSWORD);
    config.setSchema("app");
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(0);
    config.setConnectionInitSql(EmbeddedPg.SET_TIME_ZONE);
    config.setPoolName("pg-" + role);
    return new HikariDataSource(config);
  }

  private static void exec(String database, String sql) throws SQLException {
    try (Connection c = EmbeddedPg.connect(database);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() {
    application.close();
    owner.close();
  }
}
