package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.StoreException;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/**
 * Storage faults on SQLite: a read-only file, a full disk, a writer holding the lock beyond the
 * busy timeout, a file locked by another process. Each must end the step with a {@link
 * StoreException} (SQLite's result code in {@link StoreException#vendorCode()}), leave no receipt
 * and no effect row behind (checked through a fresh connection), not report a queue message as
 * sent, and the same store must work again, running the effect once, when the fault is gone.
 */
class StorageFaultTest {
  private static final int SQLITE_BUSY = 5;
  private static final int SQLITE_READONLY = 8;
  private static final int SQLITE_IOERR = 10;
  private static final int SQLITE_FULL = 13;
  private static final int SQLITE_CANTOPEN = 14;
  private static final Duration STARTUP = Duration.ofSeconds(30);

  @TempDir Path dir;
  private Path file;

  @BeforeEach
  void createFile() {
    file = dir.resolve("faults.db");
    OnceOnly.openSqlite(file).close();
    Db.exec(file, "CREATE TABLE fault_effects (intent_key TEXT NOT NULL, body BLOB)");
  }

  @Test
  void aQueryOnlyConnectionRefusesTheStepUntilItMayWriteAgain() throws SQLException {
    try (Connection c = Db.open(file);
        OnceOnly once = OnceOnly.builder().connection(c).build()) {
      pragma(c, "PRAGMA query_only = ON");
      expectFault(once, "ro-1", SQLITE_READONLY); // BEGIN IMMEDIATE is refused already
      expectFault(once, "ro-1", SQLITE_READONLY);
      assertThatThrownBy(() -> once.queue().send("q", "ro-msg", Map.of("n", 1)))
          .isInstanceOf(StoreException.class);
      pragma(c, "PRAGMA query_only = OFF");
      expectWorksAgain(once, "ro-1");
    }
  }

  /**
   * The file this library opened itself made unwritable from outside: {@code chattr +i} on the file
   * and its WAL and shared-memory files when running as root (where permissions do not stop
   * writes), {@code chmod a-w} otherwise. Opening it must be refused typed; the step already open
   * must not report a commit it could not make.
   */
  @Test
  void aReadOnlyFileIsRefusedTypedAndWorksAgainWhenWritable() throws Exception {
    // A rollback journal, not WAL: a WAL store whose -shm file becomes immutable dies of SIGBUS at
    // its next write (ImmutableStoreFilesTest shows it in a child JVM), which here would end the
    // whole test JVM whenever the kernel had written the mapped page back before the attempt.
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .journalMode(OnceOnly.JournalMode.DELETE)
            .busyTimeout(ms(200))
            .build()) {
      expectWorksAgain(once, "warm");
      try (ReadOnly fault = ReadOnly.apply(List.of(file))) {
        assumeThat(fault.effective()).as("this file system can make a file read-only").isTrue();
        // A new store is refused on a file it cannot write (SQLite would open it read-only, and
        // that connection would refuse every write for good), before anything is written.
        assertThatThrownBy(
                () ->
                    OnceOnly.builder()
                        .sqlite(file)
                        .journalMode(OnceOnly.JournalMode.DELETE)
                        .build())
            .isInstanceOf(StoreException.class)
            .satisfies(
                e ->
                    assertThat(((StoreException) e).vendorCode() & 0xFF)
                        .isEqualTo(SQLITE_READONLY));
        // The connection opened before the fault may or may not be stopped by the kernel; either
        // the step fails typed and leaves nothing, or it commits for real (checked below).
        attemptDuringFault(once, "ro-2");
      }
      expectWorksAgainOrRepeated(once, "ro-2");
    }
    try (OnceOnly reopened = OnceOnly.openSqlite(file)) {
      expectWorksAgain(reopened, "ro-1");
      expectWorksAgain(reopened, "ro-3");
    }
  }

  @Test
  void aFullDiskFailsTheStepTypedAndWorksAgainWithRoom() throws SQLException {
    try (Connection c = Db.open(file);
        OnceOnly once = OnceOnly.builder().connection(c).build()) {
      long pages = Db.count(file, "PRAGMA page_count");
      String big = "x".repeat(60_000);
      pragma(c, "PRAGMA max_page_count = " + pages);
      // The effect's small row fits; the receipt's large result does not.
      assertThatThrownBy(() -> execute(once, "full-1", true, 200_000))
          .isInstanceOf(StoreException.class)
          .satisfies(
              e -> assertThat(((StoreException) e).vendorCode() & 0xFF).isEqualTo(SQLITE_FULL));
      assertThatThrownBy(
              () ->
                  once.queue()
                      .send(Message.of("q", "full-msg", Map.of("body", List.of(big, big, big)))))
          .isInstanceOf(StoreException.class);
      pragma(c, "PRAGMA max_page_count = 1073741823");
      expectWorksAgain(once, "full-1");
      assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
      assertThat(once.queue().send("q", "full-msg", Map.of("n", 1)).status().name())
          .isEqualTo("SENT");
    }
  }

  /**
   * A full disk on the connection this library opened itself: the effect caps the file at its
   * current size ({@code max_page_count} holds per connection, and the effect is handed the
   * library's; it reaches the driver's connection through {@code unwrap}, past the guard that
   * refuses {@code PRAGMA}), so the receipt of a large result no longer fits. Then room comes back;
   * the same store must run the step again, not fail for good.
   */
  @Test
  void aFullDiskOnTheLibrarysOwnConnectionFailsTypedAndTheStoreRecovers() throws SQLException {
    try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
      expectWorksAgain(once, "warm");
      long pages = Db.count(file, "PRAGMA page_count");
      assertThatThrownBy(() -> largeResult(once, "full-2", "PRAGMA max_page_count = " + pages))
          .isInstanceOf(StoreException.class)
          .satisfies(
              e -> assertThat(((StoreException) e).vendorCode() & 0xFF).isEqualTo(SQLITE_FULL));
      assertThat(receipts("full-2")).isZero();
      Outcome<String> again = largeResult(once, "full-2", "PRAGMA max_page_count = 1073741823");
      assertThat(again).isInstanceOf(Outcome.Created.class);
      expectWorksAgain(once, "full-3");
    }
    assertThat(receipts("full-2")).isEqualTo(1);
  }

  @Test
  void aWriterHoldingTheLockBeyondTheBusyTimeoutFailsTheStepTyped() throws SQLException {
    try (OnceOnly once = OnceOnly.builder().sqlite(file).busyTimeout(ms(200)).build()) {
      try (Connection holder = Db.open(file)) {
        pragma(holder, "BEGIN EXCLUSIVE");
        pragma(holder, "INSERT INTO fault_effects (intent_key) VALUES ('holder')");
        expectFault(once, "busy-1", SQLITE_BUSY);
        pragma(holder, "ROLLBACK");
      }
      expectWorksAgain(once, "busy-1");
    }
  }

  @Test
  void anotherProcessHoldingAWriteTransactionMakesTheStepFailBusy() throws SQLException {
    try (OnceOnly once = OnceOnly.builder().sqlite(file).busyTimeout(ms(300)).build()) {
      expectWorksAgain(once, "warm");
      try (ChildJvm holder = lock("write")) {
        expectFault(once, "proc-1", SQLITE_BUSY);
        assertThat(once.receipts().find(IntentKey.of("s", "warm"))).isPresent(); // reads go on
        holder.send("release");
        holder.awaitSuccess(STARTUP);
      }
      expectWorksAgain(once, "proc-1");
    }
  }

  @Test
  void aFileLockedExclusivelyByAnotherProcessIsRefusedTypedThenWorksAgain() throws SQLException {
    // An exclusive lock in WAL mode can only be taken while nobody else has the file open.
    try (ChildJvm holder = lock("exclusive")) {
      assertThatThrownBy(() -> OnceOnly.builder().sqlite(file).busyTimeout(ms(300)).build())
          .isInstanceOf(StoreException.class)
          .satisfies(
              e -> assertThat(((StoreException) e).vendorCode() & 0xFF).isEqualTo(SQLITE_BUSY));
      holder.send("release");
      holder.awaitSuccess(STARTUP);
    }
    try (OnceOnly reopened = OnceOnly.builder().sqlite(file).build()) {
      expectWorksAgain(reopened, "excl-1");
    }
  }

  /** The same through a caller's data source, one connection per step. */
  @Test
  void throughADataSourceABusyFileFailsTheStepTypedAndWorksAgain() throws SQLException {
    SQLiteDataSource ds = new SQLiteDataSource();
    ds.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
    ds.setBusyTimeout(200);
    try (OnceOnly once = OnceOnly.builder().dataSource(ds).build()) {
      try (Connection holder = Db.open(file)) {
        pragma(holder, "BEGIN EXCLUSIVE");
        expectFault(once, "ds-1", SQLITE_BUSY);
        pragma(holder, "ROLLBACK");
      }
      expectWorksAgain(once, "ds-1");
    }
  }

  /**
   * A worker running while another process holds the write lock far past the busy timeout: its
   * steps, acknowledgements and retries fail for a while; once the lock is gone, every message is
   * worked off with its effect once, and nothing is dead-lettered.
   */
  @Test
  void aWorkerCarriesOnOnceAWriteLockHeldByAnotherProcessIsGone() throws Exception {
    int messages = 20;
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .busyTimeout(ms(100))
            .groupCommit(1, Duration.ZERO)
            .build()) {
      for (int i = 0; i < messages; i++) {
        once.queue().send("faults", "w-" + i, Map.of("n", i));
      }
      CountDownLatch claimed = new CountDownLatch(1);
      CountDownLatch locked = new CountDownLatch(1);
      AtomicInteger refused = new AtomicInteger();
      Handler handler =
          job -> {
            claimed.countDown();
            locked.await(30, TimeUnit.SECONDS); // the first handlers hold their delivery
            try {
              String key = job.delivery().key();
              job.completeWith(
                  tx ->
                      once.receipts()
                          .execute(
                              tx,
                              IntentKey.of("s", key),
                              "fault",
                              Map.of("key", key),
                              String.class,
                              c -> insertRow(c, key)));
            } catch (StoreException e) {
              refused.incrementAndGet();
              throw e;
            }
          };
      try (Worker worker =
          Worker.builder(once.queue(), "faults", handler)
              .threads(2)
              .lease(ms(300))
              .idleBackoff(ms(1), ms(20))
              .build()
              .start()) {
        assertThat(claimed.await(30, TimeUnit.SECONDS)).isTrue();
        try (ChildJvm holder = lock("write")) {
          locked.countDown();
          Eventually.await(Duration.ofSeconds(30), "a step refused", () -> refused.get() > 0);
          holder.send("release");
          holder.awaitSuccess(STARTUP);
        }
        Eventually.await(
            Duration.ofSeconds(60),
            "every message worked off",
            () -> once.queue().depth("faults") == 0);
      }
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM fault_effects")).isEqualTo(messages);
    assertThat(Db.count(file, "SELECT COUNT(DISTINCT intent_key) FROM fault_effects"))
        .isEqualTo(messages);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(messages);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  private ChildJvm lock(String mode) {
    ChildJvm holder =
        ChildJvm.start("lock-" + mode, dir, LockHolderMain.class, "file=" + file, "mode=" + mode);
    holder.awaitLine("locked", STARTUP);
    return holder;
  }

  /** The step fails with a StoreException of {@code code}, and nothing of it is left. */
  private void expectFault(OnceOnly once, String key, int code) {
    ThrowingCallable step = () -> execute(once, key);
    assertThatThrownBy(step)
        .isInstanceOf(StoreException.class)
        .satisfies(e -> assertThat(((StoreException) e).vendorCode() & 0xFF).isEqualTo(code));
  }

  private void attemptDuringFault(OnceOnly once, String key) throws SQLException {
    try {
      System.out.println("during the fault, the open store answered " + execute(once, key));
    } catch (StoreException e) {
      System.out.println("during the fault, the open store failed: " + e.getMessage());
      assertThat(e.vendorCode() & 0xFF).isIn(SQLITE_READONLY, SQLITE_IOERR, SQLITE_CANTOPEN);
    }
  }

  /** The fault is gone: the step runs its effect (nothing was left by the failed attempt). */
  private void expectWorksAgain(OnceOnly once, String key) throws SQLException {
    assertThat(rows(key)).as("effect rows of %s before the retry", key).isZero();
    assertThat(execute(once, key)).isInstanceOf(Outcome.Created.class);
    assertThat(rows(key)).as("effect rows of %s", key).isEqualTo(1);
    assertThat(receipts(key)).isEqualTo(1);
  }

  private void expectWorksAgainOrRepeated(OnceOnly once, String key) throws SQLException {
    Outcome<String> outcome = execute(once, key);
    assertThat(rows(key)).as("effect rows of %s", key).isEqualTo(1);
    assertThat(receipts(key)).isEqualTo(1);
    assertThat(outcome.resultOrThrow()).isEqualTo(key);
  }

  private Outcome<String> execute(OnceOnly once, String key) throws SQLException {
    return execute(once, key, true, 0);
  }

  /**
   * Runs a step whose effect writes one small row (if {@code writeRow}) and returns {@code key}
   * padded to {@code resultChars}, a result large enough to need new pages for the receipt.
   */
  private Outcome<String> execute(OnceOnly once, String key, boolean writeRow, int resultChars)
      throws SQLException {
    return step(
        once,
        key,
        tx -> {
          if (writeRow) {
            insertRow(tx, key);
          }
          return key + " ".repeat(Math.max(0, resultChars - key.length()));
        });
  }

  /** Inserts the effect row of {@code key} into {@code fault_effects}. */
  static String insertRow(Connection tx, String key) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO fault_effects (intent_key) VALUES (?)")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
    return key;
  }

  /** A step whose effect runs {@code pragma} on the step's connection and returns 200 KB. */
  private static Outcome<String> largeResult(OnceOnly once, String key, String pragma)
      throws SQLException {
    return step(
        once,
        key,
        tx -> {
          // The lent connection refuses PRAGMA (ConnectionMisuseException); this fault injection
          // reaches the driver's connection under it on purpose, through unwrap.
          pragma(tx.unwrap(Connection.class), pragma);
          return "x".repeat(200_000);
        });
  }

  private static Outcome<String> step(
      OnceOnly once, String key, Effect<String, SQLException> effect) throws SQLException {
    return once.receipts()
        .execute(IntentKey.of("s", key), "fault", Map.of("key", key), String.class, effect);
  }

  private long rows(String key) {
    return Db.count(file, "SELECT COUNT(*) FROM fault_effects WHERE intent_key = '" + key + "'");
  }

  private long receipts(String key) {
    return Db.count(
        file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = '" + key + "'");
  }

  private Path sibling(String suffix) {
    return file.resolveSibling(file.getFileName() + suffix);
  }

  private static void pragma(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  /** Files and folders made read-only for real, and made writable again on close. */
  static final class ReadOnly implements AutoCloseable {
    private final List<Path> files;
    private final boolean immutable;
    private final boolean effective;

    private ReadOnly(List<Path> files, boolean immutable) {
      this.files = files;
      this.immutable = immutable;
      this.effective = files.stream().noneMatch(ReadOnly::writable);
    }

    static ReadOnly apply(List<Path> files) throws IOException, InterruptedException {
      boolean root = "root".equals(System.getProperty("user.name"));
      List<Path> existing = new ArrayList<>();
      for (Path f : files) {
        if (Files.exists(f)) {
          existing.add(f);
        }
      }
      for (Path f : existing) {
        if (root) {
          run("chattr", "+i", f.toString());
        } else {
          Files.setPosixFilePermissions(
              f, PosixFilePermissions.fromString(Files.isDirectory(f) ? "r-xr-xr-x" : "r--r--r--"));
        }
      }
      return new ReadOnly(existing, root);
    }

    boolean effective() {
      return effective && !files.isEmpty();
    }

    /** Whether a write really succeeds: appending nothing to a file, a new file in a folder. */
    private static boolean writable(Path f) {
      try {
        if (Files.isDirectory(f)) {
          Files.delete(Files.createTempFile(f, "probe", ".tmp"));
          return true;
        }
        try (OutputStream out = Files.newOutputStream(f, StandardOpenOption.APPEND)) {
          return true;
        }
      } catch (IOException e) {
        return false;
      }
    }

    private static void run(String... command) throws IOException, InterruptedException {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      p.waitFor();
    }

    @Override
    public void close() throws IOException, InterruptedException {
      for (Path f : files) {
        if (immutable) {
          run("chattr", "-i", f.toString());
        } else {
          Files.setPosixFilePermissions(
              f, PosixFilePermissions.fromString(Files.isDirectory(f) ? "rwxr-xr-x" : "rw-r--r--"));
        }
      }
    }
  }
}
