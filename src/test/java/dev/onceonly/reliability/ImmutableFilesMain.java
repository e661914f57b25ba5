package dev.onceonly.reliability;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.StoreException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;

/**
 * The child of {@link ImmutableStoreFilesTest}: opens a store on a SQLite file in the journal mode
 * given, commits a step ({@code READY}), and on each line from stdin runs one step whose effect
 * inserts a row into {@code fault_effects}: {@code STEP key} prints {@code OUTCOME key Created} or
 * {@code FAILED key <exception> <vendor code>}. {@code CLOSE} closes the store and exits 0.
 *
 * <p>Arguments: the database file, {@code WAL} or {@code DELETE}.
 */
public final class ImmutableFilesMain {
  private ImmutableFilesMain() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    OnceOnly.JournalMode mode = OnceOnly.JournalMode.valueOf(args[1]);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .journalMode(mode)
            .busyTimeout(Duration.ofMillis(200))
            .build()) {
      step(once, "warm");
      System.out.println("READY");
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.equals("CLOSE")) {
          break;
        }
        step(once, line.substring("STEP ".length()));
      }
    }
    System.out.println("CLOSED");
  }

  private static void step(OnceOnly once, String key) {
    try {
      Outcome<String> outcome =
          once.receipts()
              .execute(
                  IntentKey.of("s", key),
                  "fault_step",
                  Map.of("key", key),
                  String.class,
                  tx -> {
                    try (PreparedStatement ps =
                        tx.prepareStatement("INSERT INTO fault_effects (intent_key) VALUES (?)")) {
                      ps.setString(1, key);
                      ps.executeUpdate();
                    }
                    return key;
                  });
      System.out.println("OUTCOME " + key + " " + outcome.getClass().getSimpleName());
    } catch (StoreException e) {
      System.out.println(
          "FAILED " + key + " " + e.getClass().getSimpleName() + " " + (e.vendorCode() & 0xFF));
    } catch (SQLException e) {
      System.out.println("FAILED " + key + " SQLException " + (e.getErrorCode() & 0xFF));
    }
  }
}
