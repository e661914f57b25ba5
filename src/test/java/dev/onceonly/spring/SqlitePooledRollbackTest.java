package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * SQLite through Boot's Hikari pool, set up as docs/spring.md prescribes ({@code
 * transaction_mode=IMMEDIATE}): after a transaction could not begin because another writer held the
 * file's lock past the busy timeout, the application's later transactions on the same pooled
 * connection still commit all or nothing. The sequences of transactions are generated; after each
 * one the file is reopened and must hold exactly the rows of the transactions that committed.
 */
class SqlitePooledRollbackTest {
  @TempDir Path dir;

  /** The application: Boot's data source, transaction manager, template and JdbcTemplate. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class LedgerApplication {}

  /**
   * Why: sqlite-jdbc marks the connection as in a transaction before it runs {@code BEGIN}; when
   * the {@code BEGIN} fails busy, the connection says auto-commit is off while SQLite has no
   * transaction, so every statement commits on its own and {@code rollback()} fails.
   */
  @Test
  void theDriverLeavesAFailedBeginWithAutoCommitOffAndNoTransaction() throws SQLException {
    Path file = dir.resolve("driver.db");
    try (Connection setup = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = setup.createStatement()) {
      s.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY)");
    }
    String url = "jdbc:sqlite:" + file + "?transaction_mode=IMMEDIATE&busy_timeout=50";
    try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + file);
        Connection app = DriverManager.getConnection(url)) {
      holder.createStatement().execute("BEGIN IMMEDIATE");
      assertThatThrownBy(() -> app.setAutoCommit(false)).hasMessageContaining("SQLITE_BUSY");
      holder.createStatement().execute("ROLLBACK");
      assertThat(app.getAutoCommit()).isFalse();
      app.createStatement().execute("INSERT INTO entries (id) VALUES (1)");
      assertThatThrownBy(app::rollback).hasMessageContaining("no transaction is active");
    }
    assertThat(ids(file)).containsExactly(1L);
  }

  private enum Step {
    COMMIT,
    ROLLBACK_ONLY,
    THROW,
    BUSY_BEGIN,
    BUSY_BEGIN_PLAIN_JDBC
  }

  @Test
  void generatedSequencesKeepExactlyTheCommittedRows() throws SQLException {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int run = 0; run < 3; run++) {
      Path file = dir.resolve("ledger-" + run + ".db");
      try (Connection setup = DriverManager.getConnection("jdbc:sqlite:" + file);
          Statement s = setup.createStatement()) {
        s.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY)");
      }
      List<Step> steps = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        steps.add(Step.values()[random.nextInt(Step.values().length)]);
      }
      Set<Long> committed = new TreeSet<>();
      try (ConfigurableApplicationContext context = start(file, 1 + random.nextInt(2))) {
        for (int i = 0; i < steps.size(); i++) {
          committed.addAll(run(context, file, steps.get(i), i + 1, random));
        }
      }
      assertThat(ids(file)).as("seed %d, run %d: %s", seed, run, steps).isEqualTo(committed);
    }
  }

  /** Runs one step with row {@code id}; returns the ids it committed. */
  private static Set<Long> run(
      ConfigurableApplicationContext context, Path file, Step step, long id, Random random)
      throws SQLException {
    TransactionTemplate tx = context.getBean(TransactionTemplate.class);
    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
    String insert = "INSERT INTO entries (id) VALUES (?)";
    Set<Long> out = new TreeSet<>();
    switch (step) {
      case COMMIT -> {
        tx.executeWithoutResult(status -> jdbc.update(insert, id));
        out.add(id);
      }
      case ROLLBACK_ONLY ->
          tx.executeWithoutResult(
              status -> {
                jdbc.update(insert, id);
                status.setRollbackOnly();
              });
      case THROW ->
          assertThatThrownBy(
                  () ->
                      tx.executeWithoutResult(
                          status -> {
                            jdbc.update(insert, id);
                            throw new IllegalStateException("refused after the write");
                          }))
              .hasMessage("refused after the write");
      case BUSY_BEGIN, BUSY_BEGIN_PLAIN_JDBC -> {
        try (Connection writer = DriverManager.getConnection("jdbc:sqlite:" + file);
            Statement w = writer.createStatement()) {
          w.execute("BEGIN IMMEDIATE");
          if (step == Step.BUSY_BEGIN) {
            assertThatThrownBy(() -> tx.executeWithoutResult(status -> jdbc.update(insert, id)))
                .hasStackTraceContaining("SQLITE_BUSY");
          } else {
            DataSource ds = context.getBean(DataSource.class);
            try (Connection c = ds.getConnection()) {
              assertThatThrownBy(() -> c.setAutoCommit(false))
                  .hasStackTraceContaining("SQLITE_BUSY");
            }
          }
          if (random.nextBoolean()) {
            w.execute("INSERT INTO entries (id) VALUES (" + -id + ")");
            w.execute("COMMIT");
            out.add(-id);
          } else {
            w.execute("ROLLBACK");
          }
        }
      }
    }
    return out;
  }

  private static ConfigurableApplicationContext start(Path file, int poolSize) {
    return new SpringApplicationBuilder(LedgerApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(
            Map.of(
                "spring.datasource.url",
                "jdbc:sqlite:" + file + "?transaction_mode=IMMEDIATE&busy_timeout=100",
                "spring.datasource.hikari.maximum-pool-size",
                Integer.toString(poolSize)))
        .run();
  }

  private static Set<Long> ids(Path file) throws SQLException {
    Set<Long> out = new TreeSet<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        ResultSet rs = c.createStatement().executeQuery("SELECT id FROM entries")) {
      while (rs.next()) {
        out.add(rs.getLong(1));
      }
    }
    return out;
  }
}
