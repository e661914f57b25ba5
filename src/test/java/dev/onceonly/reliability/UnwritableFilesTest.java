package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.StoreException;
import dev.onceonly.testing.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite files that cannot be written, as docs/operations.md describes them. Opening a store on a
 * database, or in a folder, this process cannot write is refused with a {@link StoreException}
 * ({@code SQLITE_READONLY}), and nothing is written; once writable, the file opens and its rows are
 * there. A store already open whose files become unwritable fails its writes typed, and the same
 * store, not reopened, writes again once the files are writable, the row there after reopening:
 * also when its write connection was first opened during the fault (SQLite opens such a connection
 * read-only for good). Every journal mode the library offers and every set of unwritable paths (the
 * file, the folder, both) is tried. The fault is {@code chattr +i} as root (where permissions do
 * not stop writes), {@code chmod a-w} otherwise; where neither stops a write, the test says so and
 * is skipped.
 */
class UnwritableFilesTest {
  private static final int SQLITE_READONLY = 8;
  private static final int SQLITE_IOERR = 10;
  private static final int SQLITE_CANTOPEN = 14;

  @TempDir Path dir;

  private enum Fault {
    FILE,
    FOLDER,
    BOTH
  }

  private static List<Path> paths(Fault fault, Path file) {
    return switch (fault) {
      case FILE -> List.of(file);
      case FOLDER -> List.of(file.getParent());
      case BOTH -> List.of(file, file.getParent());
    };
  }

  @Test
  void openingOnUnwritableFilesIsRefusedTypedAndWritesNothing() throws Exception {
    for (OnceOnly.JournalMode mode : OnceOnly.JournalMode.values()) {
      for (Fault fault : Fault.values()) {
        String what = mode + ", unwritable " + fault;
        Path file = newStore(mode + "-" + fault, mode);
        byte[] before = Files.readAllBytes(file);
        try (StorageFaultTest.ReadOnly ro = StorageFaultTest.ReadOnly.apply(paths(fault, file))) {
          assumeThat(ro.effective()).as("a file or folder can be made unwritable here").isTrue();
          for (OnceOnly.Migrations migrations : OnceOnly.Migrations.values()) {
            assertThatThrownBy(
                    () ->
                        OnceOnly.builder()
                            .sqlite(file)
                            .journalMode(mode)
                            .migrations(migrations)
                            .build()
                            .close())
                .as("%s, migrations %s", what, migrations)
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(file.toString())
                .satisfies(
                    e ->
                        assertThat(((StoreException) e).vendorCode() & 0xFF)
                            .isEqualTo(SQLITE_READONLY));
          }
          assertThat(Files.readAllBytes(file)).as(what).isEqualTo(before);
          assertThat(sideFiles(file)).as(what).isEmpty();
        }
        try (OnceOnly once = OnceOnly.builder().sqlite(file).journalMode(mode).build()) {
          assertThat(once.receipts().find(IntentKey.of("s", "before"))).as(what).isPresent();
        }
      }
    }
  }

  @Test
  void aStoreWhoseFilesBecameUnwritableWritesAgainWithoutReopening() throws Exception {
    // A rollback journal: under WAL an open store whose -shm becomes immutable dies of SIGBUS
    // (ImmutableStoreFilesTest), as docs/operations.md says.
    OnceOnly.JournalMode mode = OnceOnly.JournalMode.DELETE;
    int n = 0;
    for (Fault fault : Fault.values()) {
      for (boolean writerOpenedDuringFault : List.of(false, true)) {
        String what =
            "unwritable " + fault + ", writer opened during the fault: " + writerOpenedDuringFault;
        Path file = newStore("open-" + fault + "-" + writerOpenedDuringFault, mode);
        String key = "k-" + n++;
        try (OnceOnly once =
            OnceOnly.builder()
                .sqlite(file)
                .journalMode(mode)
                .migrations(OnceOnly.Migrations.VALIDATE) // opens no write connection
                .build()) {
          if (!writerOpenedDuringFault) {
            assertThat(step(once, "warm-" + key)).isInstanceOf(Outcome.Created.class);
          }
          try (StorageFaultTest.ReadOnly ro = StorageFaultTest.ReadOnly.apply(paths(fault, file))) {
            assumeThat(ro.effective()).as("a file or folder can be made unwritable here").isTrue();
            for (int attempt = 0; attempt < 3; attempt++) {
              assertThatThrownBy(() -> step(once, key))
                  .as("%s, attempt %d", what, attempt)
                  .isInstanceOf(StoreException.class)
                  .satisfies(
                      e ->
                          assertThat(((StoreException) e).vendorCode() & 0xFF)
                              .isIn(SQLITE_READONLY, SQLITE_IOERR, SQLITE_CANTOPEN));
            }
            // (Reads may fail too meanwhile: a failed write can leave a journal that a reader must
            // roll back, which needs the file writable.)
          }
          assertThat(step(once, key)).as(what).isInstanceOf(Outcome.Created.class);
        }
        assertThat(
                Db.count(
                    file,
                    "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = '" + key + "'"))
            .as("%s: the row after reopening", what)
            .isEqualTo(1);
      }
    }
  }

  /** A new store in a folder of its own, with one receipt, closed. */
  private Path newStore(String name, OnceOnly.JournalMode mode) throws Exception {
    Path file = Files.createDirectory(dir.resolve(name)).resolve("store.db");
    try (OnceOnly once = OnceOnly.builder().sqlite(file).journalMode(mode).build()) {
      step(once, "before");
    }
    return file;
  }

  private static Outcome<String> step(OnceOnly once, String key) {
    return once.receipts()
        .execute(IntentKey.of("s", key), "write", Map.of("key", key), String.class, tx -> key);
  }

  private static List<String> sideFiles(Path file) {
    List<String> present = new ArrayList<>();
    for (String suffix : List.of("-journal", "-wal", "-shm")) {
      if (Files.exists(Path.of(file + suffix))) {
        present.add(suffix);
      }
    }
    return present;
  }
}
