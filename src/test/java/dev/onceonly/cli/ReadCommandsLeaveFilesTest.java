package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.Db;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that read leave the file as they found it: the same bytes (so the journal mode a
 * file was given stays), modification time and permissions, and no journal, WAL or shared-memory
 * file appearing or going. Files are generated, each kind several times with its own seed: stores
 * in rollback-journal and WAL mode (closed, or open in a live store), a 0-byte file, random bytes,
 * a store cut short, a store made read-only, an older and a newer schema, a missing file. On a
 * store the command succeeds; on anything else it says one line and exits nonzero. {@code purge}
 * writes, but refuses what is not a store (nothing written) and keeps a store's journal mode.
 */
class ReadCommandsLeaveFilesTest {
  private static final String[] SIDECARS = {"-wal", "-shm", "-journal"};

  @TempDir Path dir;

  private enum Kind {
    ROLLBACK_JOURNAL(true),
    WAL(true),
    WAL_LIVE(true),
    READ_ONLY(true),
    EMPTY(false),
    RANDOM(false),
    CUT_SHORT(false),
    OLDER_SCHEMA(false),
    NEWER_SCHEMA(false),
    MISSING(false);

    final boolean store;

    Kind(boolean store) {
      this.store = store;
    }
  }

  private static List<String[]> readCommands(Path file) {
    String f = file.toString();
    return List.of(
        new String[] {"status", "--db", f},
        new String[] {"status", "--db", f, "--json"},
        new String[] {"pending", "--db", f},
        new String[] {"verify", "--db", f},
        new String[] {"receipts", "show", "s", "k-0", "--db", f},
        new String[] {"dead-letters", "list", "--db", f},
        new String[] {"schedules", "list", "--db", f},
        new String[] {"queues", "list", "--db", f},
        new String[] {"queues", "list", "--db", f, "--json"},
        new String[] {"workflows", "list", "--db", f},
        new String[] {"workflows", "list", "--state", "CANCELLED", "--db", f, "--json"},
        new String[] {"workflows", "show", "run-1", "--db", f});
  }

  @Test
  void everyReadCommandLeavesEveryKindOfFileAsItWas() throws Exception {
    for (int seed = 1; seed <= 3; seed++) {
      for (Kind kind : Kind.values()) {
        Path file = dir.resolve(kind.name().toLowerCase() + "-" + seed + ".db");
        Random random = new Random(seed * 31L + kind.ordinal());
        try (OnceOnly live = make(kind, file, random)) {
          for (String[] args : readCommands(file)) {
            Snapshot before = Snapshot.of(file);
            CliRun run = CliRun.of(args);
            String what = kind + " (seed " + seed + "): " + String.join(" ", args);
            assertThat(Snapshot.of(file)).as("%s\n%s", what, run).isEqualTo(before);
            if (kind.store) {
              assertThat(run.status()).as("%s\n%s", what, run).isIn(0, 1, 3); // verify: 1, show: 3
            } else {
              assertThat(run.status()).as("%s\n%s", what, run).isNotZero();
              assertThat(run.err())
                  .as("%s\n%s", what, run)
                  .startsWith("onceonly: ")
                  .hasLineCount(1);
              assertThat(run.out()).as("%s", what).isEmpty();
            }
          }
        }
      }
    }
  }

  @Test
  void purgeRefusesWhatIsNotAStoreAndKeepsAStoresJournalMode() throws Exception {
    for (int seed = 1; seed <= 3; seed++) {
      for (Kind kind : List.of(Kind.EMPTY, Kind.RANDOM, Kind.CUT_SHORT, Kind.MISSING)) {
        Path file = dir.resolve("purge-" + kind.name().toLowerCase() + "-" + seed + ".db");
        make(kind, file, new Random(seed * 17L + kind.ordinal()));
        Snapshot before = Snapshot.of(file);
        CliRun run = CliRun.of("purge", "--older-than", "1d", "--db", file.toString());
        assertThat(run.status()).as("%s\n%s", kind, run).isNotZero();
        assertThat(run.err()).as("%s", kind).startsWith("onceonly: ").hasLineCount(1);
        assertThat(Snapshot.of(file)).as("%s", kind).isEqualTo(before);
      }
    }
    Path rollback = dir.resolve("purge-rollback.db");
    make(Kind.ROLLBACK_JOURNAL, rollback, new Random(5));
    CliRun run = CliRun.of("purge", "--older-than", "1d", "--db", rollback.toString());
    assertThat(run.status()).as("%s", run).isZero();
    assertThat(Db.strings(rollback, "PRAGMA journal_mode")).containsExactly("delete");
    assertThat(presentSidecars(rollback)).isEmpty();
  }

  /** Makes a file of that kind; returns the store still open on it for {@code WAL_LIVE}. */
  private static OnceOnly make(Kind kind, Path file, Random random) throws IOException {
    switch (kind) {
      case ROLLBACK_JOURNAL -> fill(file, OnceOnly.JournalMode.DELETE, random);
      case WAL, NEWER_SCHEMA, OLDER_SCHEMA, READ_ONLY ->
          fill(file, OnceOnly.JournalMode.WAL, random);
      case WAL_LIVE -> {
        fill(file, OnceOnly.JournalMode.WAL, random);
        OnceOnly live = OnceOnly.openSqlite(file);
        live.intents().register(IntentKey.of("s", "live"), "op", Map.of("n", 1));
        return live;
      }
      case EMPTY -> Files.createFile(file);
      case RANDOM -> {
        byte[] bytes = new byte[1 + random.nextInt(8192)];
        random.nextBytes(bytes);
        Files.write(file, bytes);
      }
      case CUT_SHORT -> {
        fill(file, OnceOnly.JournalMode.DELETE, random);
        byte[] whole = Files.readAllBytes(file);
        // past the header's first 100 bytes, short of the last page
        int length = 100 + random.nextInt(whole.length - 4196);
        Files.write(file, java.util.Arrays.copyOf(whole, length));
      }
      case MISSING -> {}
    }
    if (kind == Kind.OLDER_SCHEMA) {
      Db.exec(
          file,
          "DELETE FROM onceonly_schema_version"
              + " WHERE version = (SELECT MAX(version) FROM onceonly_schema_version)");
    } else if (kind == Kind.NEWER_SCHEMA) {
      Db.exec(
          file,
          "INSERT INTO onceonly_schema_version (version, description, applied_at)"
              + " SELECT MAX(version) + 1, 'future', applied_at FROM onceonly_schema_version"
              + " GROUP BY applied_at ORDER BY applied_at DESC LIMIT 1");
    } else if (kind == Kind.READ_ONLY) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
    }
    return null;
  }

  /** A closed store with a random number of intents, receipts and messages. */
  private static void fill(Path file, OnceOnly.JournalMode mode, Random random) throws IOException {
    try (OnceOnly once = OnceOnly.builder().sqlite(file).journalMode(mode).build()) {
      int n = 1 + random.nextInt(20);
      for (int i = 0; i < n; i++) {
        IntentKey key = IntentKey.of("s", "k-" + i);
        if (random.nextBoolean()) {
          once.intents().register(key, "op", Map.of("n", i));
        } else {
          once.receipts().execute(key, "op", Map.of("n", i), String.class, tx -> "done");
        }
        if (random.nextInt(3) == 0) {
          once.queue().send(Message.of("q", "m-" + i, Map.of("n", i)));
        }
      }
    }
  }

  private static List<String> presentSidecars(Path file) {
    List<String> present = new ArrayList<>();
    for (String suffix : SIDECARS) {
      if (Files.exists(Path.of(file + suffix))) {
        present.add(suffix);
      }
    }
    return present;
  }

  /** What a command must not change about a file. */
  private record Snapshot(
      boolean exists, String sha256, Object modified, String permissions, List<String> sidecars) {
    static Snapshot of(Path file) {
      if (!Files.exists(file)) {
        return new Snapshot(false, null, null, null, presentSidecars(file));
      }
      try {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        return new Snapshot(
            true,
            HexFormat.of().formatHex(sha.digest(Files.readAllBytes(file))),
            Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
            presentSidecars(file));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
