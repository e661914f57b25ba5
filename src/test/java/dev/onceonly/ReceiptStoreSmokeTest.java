package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.cli.demo.Tickets;
import dev.onceonly.cli.demo.Tickets.Ticket;
import dev.onceonly.testing.Db;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReceiptStoreSmokeTest {
  @TempDir Path dir;

  @Test
  void createdRepeatedConflict() throws Exception {
    Path file = dir.resolve("t.db");
    try (Connection c = Db.open(file)) {
      Tickets.createTable(c);
    }
    IntentKey key = IntentKey.of("u-1", "op-17");
    Map<String, String> args = Map.of("subject", "Investigar fallo de API");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      Outcome<Ticket> first =
          once.receipts()
              .execute(key, "create_ticket", args, Ticket.class, Tickets.create("u-1", "x"));
      assertThat(first).isInstanceOf(Outcome.Created.class);
    }
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      Outcome<Ticket> again =
          once.receipts()
              .execute(key, "create_ticket", args, Ticket.class, Tickets.create("u-1", "x"));
      assertThat(again).isInstanceOf(Outcome.Repeated.class);
      assertThat(again.resultOrThrow()).isEqualTo(new Ticket(1, "x"));
      Outcome<Ticket> other =
          once.receipts()
              .execute(
                  key,
                  "create_ticket",
                  Map.of("subject", "Otro"),
                  Ticket.class,
                  Tickets.create("u-1", "y"));
      assertThat(other).isInstanceOf(Outcome.Conflict.class);
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM tickets")).isEqualTo(1);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(1);
  }
}
