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
}
