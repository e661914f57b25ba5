package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A SQLite store opens exactly the file it is given: characters that mean something in a JDBC URL
 * or a SQLite URI ({@code ? & = # %}), spaces and non-ASCII letters are part of the name, never
 * settings or another file.
 */
class SqliteFileNameTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "app.db?cache_size=1",
        "app.db?temp_store=2&journal_mode=delete",
        "new?x=1",
        "q?mode=ro&x=1",
        "x&y=2.db",
        "a#b.db",
        "p%41.db",
        "p%3F.db",
        "with space.db",
        "ünïcødé€.db",
        "?.db"
      })
  void theStoreIsExactlyTheNamedFile(String name) throws Exception {
    Path file = dir.resolve(name);
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      once.intents().register(IntentKey.of("s", "k"), "job", Map.of("n", 1));
    }

    assertThat(names(dir)).containsExactly(name);
    assertThat(intents(file)).isEqualTo(1);
    try (OnceOnly reopened = OnceOnly.openSqlite(file)) {
      assertThat(reopened.intents().find(IntentKey.of("s", "k"))).isPresent();
    }
    assertThat(names(dir)).containsExactly(name);
  }

  @Test
  void aFolderWithAQuestionMarkHoldsTheFile() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("data?cache_size=1"));
    Path file = folder.resolve("app.db");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      once.intents().register(IntentKey.of("s", "k"), "job", Map.of());
    }
    assertThat(names(dir)).containsExactly("data?cache_size=1");
    assertThat(names(folder)).containsExactly("app.db");
    assertThat(intents(file)).isEqualTo(1);
  }

  @Test
  void namesThatDifferOnlyAfterAQuestionMarkAreTwoStores() throws Exception {
    Path one = dir.resolve("app.db?cache_size=1");
    Path two = dir.resolve("app.db?temp_store=2");
    try (OnceOnly first = OnceOnly.openSqlite(one);
        OnceOnly second = OnceOnly.openSqlite(two)) {
      first.intents().register(IntentKey.of("s", "one"), "job", Map.of());
      assertThat(second.intents().find(IntentKey.of("s", "one"))).isEmpty();
    }
    assertThat(names(dir))
        .containsExactlyInAnyOrder(one.getFileName().toString(), "app.db?temp_store=2");
    assertThat(intents(one)).isEqualTo(1);
    assertThat(intents(two)).isZero();
  }

  @Test
  void aMissingFolderIsAStoreErrorNamingItAndCreatesNothing() throws Exception {
    Path missing = dir.resolve("no?such").resolve("app.db");
    assertThatThrownBy(() -> OnceOnly.openSqlite(missing))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("no folder " + missing.getParent());
    assertThat(names(dir)).isEmpty();
  }

  /** The names in a folder, sorted: a clean close leaves no {@code -wal} or {@code -shm} behind. */
  static List<String> names(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /**
   * Counts the intents in a file read through the JDK's own file URI (an encoder independent of the
   * library's), opened read-only so that a wrong name fails instead of creating a file.
   */
  static long intents(Path file) throws SQLException {
    String uri = file.toAbsolutePath().toUri().toASCIIString() + "?mode=ro";
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + uri);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM onceonly_intents")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
