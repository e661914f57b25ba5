package dev.onceonly.race;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.testing.ChildArgs;
import dev.onceonly.testing.EmbeddedPg;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * What the child JVMs of the process tests share: a store builder on the SQLite file ({@code
 * file=}) or the PostgreSQL URL ({@code url=}, through a HikariCP pool of its own) the parent
 * named, the {@code runs} row a handler commits, and running until the parent closes stdin.
 */
final class ChildStore implements AutoCloseable {
  private final OnceOnlyBuilder builder;
  private final HikariDataSource pool;

  private ChildStore(OnceOnlyBuilder builder, HikariDataSource pool) {
    this.builder = builder;
    this.pool = pool;
  }

  static ChildStore of(ChildArgs args, int poolSize) {
    OnceOnlyBuilder builder = OnceOnly.builder();
    if (args.get("file", null) != null) {
      return new ChildStore(builder.sqlite(Path.of(args.required("file"))), null);
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args.required("url"));
    config.setDataSourceProperties(EmbeddedPg.properties());
    config.setConnectionInitSql(EmbeddedPg.SET_TIME_ZONE);
    config.setMaximumPoolSize(poolSize);
    HikariDataSource pool = new HikariDataSource(config);
    return new ChildStore(builder.dataSource(pool), pool);
  }

  OnceOnlyBuilder builder() {
    return builder;
  }

  /** Inserts the {@code runs} row of a handled message, in the handler's transaction. */
  static Void run(Connection tx, String key, String holder) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO runs (run_key, holder) VALUES (?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, holder);
      ps.executeUpdate();
    }
    return null;
  }

  /** Returns when the parent closes stdin (or dies). */
  static void untilStdinCloses() throws IOException {
    InputStream in = System.in;
    while (in.read() >= 0) {
      // nothing to do but wait
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.close();
    }
  }
}
