package onceonly.consumer;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;

/**
 * Prints one {@code name=value} line per thing ModulePathTest checks: that it runs on the module
 * path, a receipt step on the SQLite file named by its argument, the migration scripts read as
 * Flyway and Liquibase read them, and that the library's internal package stays closed.
 */
public final class Main {
  /** The effect's result; Jackson reads it because module-info opens this package to it. */
  public record Ticket(long id, String subject) {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    print("library.module", OnceOnly.class.getModule().getName());
    print("consumer.module", Main.class.getModule().getName());

    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE tickets (id INTEGER PRIMARY KEY, subject TEXT NOT NULL)");
    }
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      for (int i = 0; i < 2; i++) {
        Outcome<Ticket> outcome =
            once.receipts()
                .execute(
                    IntentKey.of("u-1", "op-17"),
                    "create_ticket",
                    Map.of("subject", "API timeout"),
                    Ticket.class,
                    tx -> insert(tx, "API timeout"));
        print(
            "outcome." + i,
            outcome.fold(
                created -> "Created " + created.result().id(),
                repeated -> "Repeated " + repeated.result().id(),
                conflict -> "Conflict",
                expired -> "Expired"));
      }
    }

    for (String dialect : new String[] {"sqlite", "postgresql"}) {
      String script = "dev/onceonly/sql/" + dialect + "/V1__receipt_core.sql";
      // Module.getResourceAsStream: what a framework given the library's module reads.
      try (InputStream in = OnceOnly.class.getModule().getResourceAsStream(script)) {
        print(dialect + ".module", describe(in));
      }
      // ClassLoader lookups: what Flyway's and Liquibase's classpath: locations do.
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      URL url = loader.getResource(script);
      print(dialect + ".loader", url == null ? "null" : describe(url.openStream()));
      print(
          dialect + ".folder",
          String.valueOf(
              Collections.list(loader.getResources("dev/onceonly/sql/" + dialect)).size()));
    }

    // The internal package is not exported: its public classes are out of reach, even by
    // reflection.
    try {
      Class.forName("dev.onceonly.internal.db.Migrator").getMethod("latestVersion").invoke(null);
      print("internal", "reachable");
    } catch (IllegalAccessException e) {
      print("internal", "IllegalAccessException");
    }
  }

  private static Ticket insert(Connection tx, String subject) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO tickets (subject) VALUES (?) RETURNING id")) {
      ps.setString(1, subject);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Ticket(rs.getLong(1), subject);
      }
    }
  }

  /** Returns "null", or whether the script creates tables and carries the prefix placeholder. */
  private static String describe(InputStream in) throws IOException {
    if (in == null) {
      return "null";
    }
    try (in) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return text.contains("CREATE TABLE") && text.contains("${prefix}") ? "script" : "other";
    }
  }

  private static void print(String name, String value) {
    System.out.println(name + "=" + value);
  }
}
