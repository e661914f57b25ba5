package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.internal.db.Migrator;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.SqliteContractDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator commands on SQLite files ({@code --db}), plus what only files have: a missing file
 * is an error and is not created, and {@code jdbc:sqlite:} URLs.
 */
class CommandsTest extends CommandsContract {
  @TempDir Path dir;
  private int databases;

  @Override
  ContractDatabase newDatabase() {
    try {
      SqliteContractDatabase db =
          SqliteContractDatabase.in(Files.createDirectory(dir.resolve("db" + ++databases)));
      Files.createFile(db.file()); // empty, as a new database; a missing file is another error
      return db;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  String[] target(ContractDatabase db) {
    return new String[] {"--db", file(db).toString()};
  }

  @Override
  String describe(ContractDatabase db) {
    return file(db).toString();
  }

  @Override
  String tablesLike(String prefix) {
    return "SELECT name FROM sqlite_master WHERE name LIKE '" + prefix + "%'";
  }

  private static Path file(ContractDatabase db) {
    return ((SqliteContractDatabase) db).file();
  }

  @Test
  void aMissingFileIsAnErrorAndIsNotCreated() {
    String missing = dir.resolve("missing.db").toString();
    for (String[] args :
        List.of(
            new String[] {"status", "--db", missing},
            new String[] {"pending", "--db", missing},
            new String[] {"receipts", "show", "u-1", "op-17", "--db", missing},
            new String[] {"dead-letters", "list", "--db", missing},
            new String[] {"dead-letters", "requeue", "q", "k", "--db", missing},
            new String[] {"unknown", "list", "--db", missing},
            new String[] {"unknown", "resolve", "s", "k", "--done", "--db", missing},
            new String[] {"purge", "--older-than", "1d", "--db", missing})) {
      CliRun run = CliRun.of(args);
      assertThat(run.status()).as("%s", run).isEqualTo(3);
      assertThat(run.err()).startsWith("onceonly: no database file at " + missing).hasLineCount(1);
      assertThat(Path.of(missing)).doesNotExist();
    }
  }

  @Test
  void wrongTargetsGiveOneLineAndATypedStatus() {
    CliRun none = CliRun.of("status");
    assertThat(none.status()).isEqualTo(2);
    assertThat(none.err()).isEqualTo("onceonly: give exactly one of --db FILE or --jdbc-url URL\n");
    assertThat(run("status", "--jdbc-url", "jdbc:sqlite:x").status()).isEqualTo(2);

    CliRun driver =
        CliRun.of("status", "--jdbc-url", "jdbc:nosuchdb://localhost/app?password=hunter2");
    assertThat(driver.status()).isEqualTo(4);
    assertThat(driver.err())
        .startsWith(
            "onceonly: no JDBC driver on the class path accepts jdbc:nosuchdb://localhost/app?password=***")
        .hasLineCount(1);

    CliRun url =
        CliRun.of("status", "--jdbc-url", "jdbc:sqlite:" + dir.resolve("no/such/dir/x.db"));
    assertThat(url.status()).as("%s", url).isEqualTo(4);
    assertThat(url.err()).startsWith("onceonly: cannot connect to jdbc:sqlite:").hasLineCount(1);

    CliRun unknown = CliRun.of("frobnicate");
    assertThat(unknown.status()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("onceonly: Unmatched argument");
  }

  @Test
  void aJdbcSqliteUrlReachesTheSameFile() throws Exception {
    String url = "jdbc:sqlite:" + file(store);
    JsonNode status = json(CliRun.of("status", "--jdbc-url", url, "--json"));
    assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
    JsonNode dead = json(CliRun.of("dead-letters", "list", "--jdbc-url", url, "--json"));
    assertThat(dead.get("deadLetters").get(0).get("deadAt").asText())
        .isEqualTo(instant("dead_at", "onceonly_dead_letters", "message_key = 'm-1'").toString());
  }

  @Test
  void migrateAndStatusUseExactlyTheNamedFile() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("named"));
    Path file = folder.resolve("new?cache_size=1&x=1 #%41");
    CliRun migrate = CliRun.of("migrate", "--db", file.toString());
    assertThat(migrate.status()).as("%s", migrate).isZero();
    assertThat(migrate.out()).contains(file.toString());
    try (Stream<Path> files = Files.list(folder)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactly(file.getFileName().toString());
    }
    String uri = "jdbc:sqlite:" + file.toUri().toASCIIString() + "?mode=ro";
    try (Connection c = DriverManager.getConnection(uri);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM onceonly_schema_version")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(Migrator.latestVersion());
    }
    CliRun status = CliRun.of("status", "--db", file.toString(), "--json");
    assertThat(status.status()).as("%s", status).isZero();
    assertThat(json(status).get("pendingIntents").asLong()).isZero();
  }

  @Test
  void helpListsEveryCommand() {
    CliRun help = CliRun.of("--help");
    assertThat(help.status()).isZero();
    assertThat(help.out())
        .contains(
            "demo", "status", "pending", "receipts", "dead-letters", "unknown", "purge", "migrate");
  }
}
