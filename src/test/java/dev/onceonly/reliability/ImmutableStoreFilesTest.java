package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files of an open store made immutable from outside ({@code chattr +i} on the database, its
 * {@code -wal} and {@code -shm}), then the next write. In WAL mode SQLite writes its WAL index
 * through a shared memory mapping of {@code -shm}; the kernel (ext4's page_mkwrite refuses an
 * immutable inode) answers that write with SIGBUS and the JVM dies. With {@link
 * OnceOnly.JournalMode#DELETE} there is no mapping: the step fails with a typed {@code
 * SQLITE_IOERR_WRITE}, nothing is half-written, and the same store runs the step once the files are
 * writable again.
 *
 * <p>The store runs in a child JVM so that a crash is observed, not suffered. Needs root and a file
 * system with the immutable attribute (ext4, xfs, btrfs); skipped elsewhere. Every file is made
 * mutable again in {@code finally}, so that no immutable file is left behind.
 */
class ImmutableStoreFilesTest {
  private static final Duration CHILD = Duration.ofSeconds(60);
  private static final int SQLITE_IOERR = 10;

  @TempDir Path dir;
  private Path file;

  @BeforeEach
  void createFile() throws Exception {
    assumeThat(chattrWorks()).as("chattr +i works here (root, ext4 or alike)").isTrue();
    file = dir.resolve("immutable.db");
    Db.exec(file, "CREATE TABLE fault_effects (intent_key TEXT NOT NULL)");
  }

  @Test
  void inWalModeTheNextWriteKillsTheJvmWithSigbus() throws Exception {
    try (ChildJvm child = start(OnceOnly.JournalMode.WAL)) {
      List<Path> locked = immutable(file, sibling("-wal"), sibling("-shm"));
      int status;
      try {
        assertThat(locked).contains(sibling("-shm")); // the mapped WAL index exists
        child.send("STEP during");
        status = child.awaitExit(CHILD);
      } finally {
        mutable(locked);
      }
      assertThat(status).as(child.diagnostics("exit status " + status)).isNotZero();
      assertThat(child.lines()).anyMatch(l -> l.contains("SIGBUS"));
      assertThat(child.lines()).noneMatch(l -> l.startsWith("OUTCOME during"));
    }
    assertRows(List.of("warm"));
  }

  @Test
  void withJournalModeDeleteTheWriteFailsTypedAndWorksAgainWhenWritable() throws Exception {
    try (ChildJvm child = start(OnceOnly.JournalMode.DELETE)) {
      List<Path> locked = immutable(file, sibling("-wal"), sibling("-shm"));
      try {
        assertThat(locked).containsExactly(file); // no -wal, no -shm
        child.send("STEP during");
        String failed = child.awaitLine("FAILED during", CHILD);
        assertThat(failed).isEqualTo("FAILED during StoreException " + SQLITE_IOERR);
      } finally {
        mutable(locked);
      }
      assertRows(List.of("warm"));
      child.send("STEP during");
      assertThat(child.awaitLine("OUTCOME during", CHILD)).isEqualTo("OUTCOME during Created");
      child.send("CLOSE");
      child.awaitSuccess(CHILD);
    }
    assertRows(List.of("during", "warm"));
    try (OnceOnly reopened =
        OnceOnly.builder().sqlite(file).journalMode(OnceOnly.JournalMode.DELETE).build()) {
      assertThat(reopened.receipts().find(dev.onceonly.IntentKey.of("s", "during"))).isPresent();
    }
  }

  private ChildJvm start(OnceOnly.JournalMode mode) {
    ChildJvm child =
        ChildJvm.start(
            "immutable-" + mode, dir, ImmutableFilesMain.class, file.toString(), mode.name());
    child.awaitLine("READY", CHILD);
    return child;
  }

  /** The effect rows and the receipts, each sorted by key, read after the store is gone. */
  private void assertRows(List<String> keys) {
    assertThat(Db.strings(file, "SELECT intent_key FROM fault_effects ORDER BY intent_key"))
        .containsExactlyElementsOf(keys);
    assertThat(Db.strings(file, "SELECT intent_key FROM onceonly_receipts ORDER BY intent_key"))
        .containsExactlyElementsOf(keys);
  }

  private Path sibling(String suffix) {
    return file.resolveSibling(file.getFileName() + suffix);
  }

  /** Makes the existing files immutable; returns those it did, to pass to {@link #mutable}. */
  private static List<Path> immutable(Path... files) throws Exception {
    List<Path> done = new ArrayList<>();
    try {
      for (Path f : files) {
        if (Files.exists(f)) {
          chattr("+i", f);
          done.add(f);
        }
      }
      return done;
    } catch (Exception | Error e) {
      mutable(done);
      throw e;
    }
  }

  private static void mutable(List<Path> files) throws Exception {
    for (Path f : files) {
      chattr("-i", f);
    }
  }

  private static boolean chattr(String flag, Path f) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("chattr", flag, f.toString()).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor() == 0;
  }

  /** Whether {@code chattr +i} here really stops a write (root on ext4), undone at once. */
  private boolean chattrWorks() throws InterruptedException {
    Path probe = dir.resolve("probe");
    try {
      Files.createFile(probe);
      if (!chattr("+i", probe)) {
        return false;
      }
      try (OutputStream out = Files.newOutputStream(probe, StandardOpenOption.APPEND)) {
        return false;
      } catch (IOException refused) {
        return true;
      } finally {
        chattr("-i", probe);
        Files.deleteIfExists(probe);
      }
    } catch (IOException e) {
      return false;
    }
  }
}
