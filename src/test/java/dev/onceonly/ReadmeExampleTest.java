package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.Db;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example of README.md's "Getting started", compiled and run, so that the README cannot drift
 * away from the API. When one of the two changes, change the other the same way.
 */
class ReadmeExampleTest {
  @TempDir Path dir;

  // ---- README.md, Getting started, step 2 ----

  record Ticket(long id, String subject) {}

  static String createTicket(OnceOnly once, String userId, String requestKey, String subject)
      throws SQLException {
    Outcome<Ticket> outcome =
        once.receipts()
            .execute(
                IntentKey.of(userId, requestKey), // scope: the signed-in user; key: from the client
                "create_ticket",
                Map.of("subject", subject),
                Ticket.class,
                tx -> Tickets.insert(tx, userId, subject)); // runs only for a new key
    return outcome.fold(
        created -> "201 ticket " + created.result().id(),
        repeated -> "200 ticket " + repeated.result().id(), // stored result; nothing ran
        conflict -> "422 key already used for other content",
        expired -> "410 key expired; use a new one");
  }

  // ---- end of the README example ----

  /** The application's own JDBC code; it writes only through the connection it is given. */
  static final class Tickets {
    static final String TABLE =
        "CREATE TABLE tickets (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, subject TEXT NOT NULL)";

    static Ticket insert(Connection tx, String owner, String subject) throws SQLException {
      try (PreparedStatement ps =
          tx.prepareStatement("INSERT INTO tickets (owner, subject) VALUES (?, ?) RETURNING id")) {
        ps.setString(1, owner);
        ps.setString(2, subject);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return new Ticket(rs.getLong(1), subject);
        }
      }
    }
  }

  @Test
  void theThreeOutcomesOfTheReadmeAndTheRowsAfterReopening() throws SQLException {
    Path file = dir.resolve("app.db");
    Db.exec(file, Tickets.TABLE);

    // README.md, Getting started, step 2: the three calls and the answers in its comments.
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      assertThat(createTicket(once, "u-1", "op-17", "API timeout")).isEqualTo("201 ticket 1");
      assertThat(createTicket(once, "u-1", "op-17", "API timeout")).isEqualTo("200 ticket 1");
      assertThat(createTicket(once, "u-1", "op-17", "Other problem"))
          .isEqualTo("422 key already used for other content");
    }

    // A new process would see the same: the receipt is in the file, not in memory.
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      assertThat(createTicket(once, "u-1", "op-17", "API timeout")).isEqualTo("200 ticket 1");
      // The same key under another scope is another intent.
      assertThat(createTicket(once, "u-2", "op-17", "API timeout")).isEqualTo("201 ticket 2");
    }

    assertThat(
            Db.strings(
                file, "SELECT id || '|' || owner || '|' || subject FROM tickets ORDER BY id"))
        .containsExactly("1|u-1|API timeout", "2|u-2|API timeout");
    String fingerprint =
        Canonicalizer.defaults()
            .fingerprint("create_ticket", "{\"subject\":\"API timeout\"}")
            .toString();
    assertThat(
            Db.strings(
                file,
                "SELECT scope || '|' || intent_key || '|' || fingerprint || '|' || result"
                    + " FROM onceonly_receipts ORDER BY scope"))
        .containsExactly(
            "u-1|op-17|" + fingerprint + "|{\"id\":1,\"subject\":\"API timeout\"}",
            "u-2|op-17|" + fingerprint + "|{\"id\":2,\"subject\":\"API timeout\"}");
    assertThat(fingerprint).startsWith("jcs-sha256:");
  }

  /**
   * The README's three calls as written. {@code Path.of} inside this class is the one below, so
   * that the README's {@code app.db} lands in the test's directory instead of the project's.
   */
  static final class AsWritten {
    static java.nio.file.Path workDir;

    static final class Path {
      static java.nio.file.Path of(String name) {
        return workDir.resolve(name);
      }
    }

    static void run() throws SQLException {
      // ---- README.md, Getting started, step 2, the calls ----
      try (OnceOnly once = OnceOnly.openSqlite(Path.of("app.db"))) {
        createTicket(once, "u-1", "op-17", "API timeout"); // "201 ticket 1": the effect ran
        createTicket(once, "u-1", "op-17", "API timeout"); // "200 ticket 1": a retry, same ticket
        createTicket(once, "u-1", "op-17", "Other problem"); // "422 …": same key, other content
      }
      // ---- end of the README calls ----
    }
  }

  @Test
  void theReadmesCallsAsWrittenLeaveOneTicketAndOneReceipt() throws SQLException {
    AsWritten.workDir = dir;
    Db.exec(dir.resolve("app.db"), Tickets.TABLE);
    AsWritten.run();

    assertThat(Db.strings(dir.resolve("app.db"), "SELECT subject FROM tickets"))
        .containsExactly("API timeout");
    assertThat(Db.count(dir.resolve("app.db"), "SELECT COUNT(*) FROM onceonly_receipts"))
        .isEqualTo(1);
  }

  /**
   * The README's fingerprint, and the claim in its comment: generated spellings of the same
   * arguments (whitespace, number forms) all give it, and it is SHA-256 over the canonical form,
   * computed here apart from the library.
   */
  @Test
  void theFingerprintIsTheSameForEverySpellingOfTheSameArguments() throws Exception {
    // ---- README.md, fingerprint ----
    Fingerprint f =
        Canonicalizer.defaults().fingerprint("make_report", "{\"samples\": [10, 20, 30]}");
    // jcs-sha256:… — the same for any member order, whitespace or spelling of the same numbers
    // ---- end of the README fingerprint ----
    byte[] digest =
        java.security.MessageDigest.getInstance("SHA-256")
            .digest(
                "{\"arguments\":{\"samples\":[10,20,30]},\"operation\":\"make_report\"}"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(f.toString()).isEqualTo("jcs-sha256:" + java.util.HexFormat.of().formatHex(digest));

    java.util.Random random = new java.util.Random(0xF1A9L);
    String[][] spellings = {
      {"10", "10.0", "1e1", "1E+1", "100e-1", "0.1e2"},
      {"20", "20.00", "2e1", "2.0E1", "200E-1", "0.2e+2"},
      {"30", "30.0", "3e1", "3E1", "300e-1", "0.03e3"}
    };
    for (int trial = 0; trial < 200; trial++) {
      StringBuilder json = new StringBuilder(space(random) + "{" + space(random) + "\"samples\"");
      json.append(space(random)).append(':').append(space(random)).append('[');
      for (int i = 0; i < 3; i++) {
        json.append(i == 0 ? "" : ",").append(space(random));
        json.append(spellings[i][random.nextInt(spellings[i].length)]).append(space(random));
      }
      json.append(']').append(space(random)).append('}').append(space(random));
      assertThat(Canonicalizer.defaults().fingerprint("make_report", json.toString()))
          .as(json.toString())
          .isEqualTo(f);
    }
  }

  private static String space(java.util.Random random) {
    return " \t\n\r  ".substring(0, random.nextInt(6));
  }
}
