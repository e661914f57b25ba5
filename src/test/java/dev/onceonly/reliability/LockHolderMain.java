package dev.onceonly.reliability;

import dev.onceonly.testing.ChildArgs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * Another process holding a SQLite file's lock, for the storage-fault tests.
 *
 * <p>Arguments: {@code file} and {@code mode}: {@code write} holds an open write transaction
 * ({@code BEGIN IMMEDIATE} and one insert), so other writers wait and then fail busy while readers
 * go on; {@code exclusive} takes the file in {@code locking_mode=EXCLUSIVE} (WAL without shared
 * memory), so nobody else can even read it. Prints {@code locked}, waits for any line or the end of
 * stdin, then rolls back and exits: the lock goes with the process.
 */
public final class LockHolderMain {
  private LockHolderMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    Path file = Path.of(args.required("file"));
    String mode = args.required("mode");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
        Statement s = c.createStatement()) {
      if (mode.equals("exclusive")) {
        s.execute("PRAGMA locking_mode = EXCLUSIVE");
      }
      s.execute("BEGIN IMMEDIATE");
      s.execute("CREATE TABLE IF NOT EXISTS lock_holder (n INTEGER)");
      s.execute("INSERT INTO lock_holder VALUES (1)");
      if (mode.equals("exclusive")) {
        s.execute("COMMIT"); // in exclusive locking mode the lock outlives the transaction
      }
      System.out.println("locked");
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
    System.out.println("released");
    System.out.flush();
  }
}
