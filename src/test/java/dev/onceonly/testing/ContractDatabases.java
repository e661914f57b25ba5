package dev.onceonly.testing;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;

/**
 * The databases the parameterized suites run on, in one place: each suite names one of the sets
 * below in its {@code @MethodSource}, and runs once per database in it, reported as {@code
 * [sqlite]}, {@code [postgresql]} and so on.
 *
 * <ul>
 *   <li>{@link #SQLITE}: a SQLite file in the test's {@code @TempDir}, with group commit (the
 *       default).
 *   <li>{@link #SQLITE_UNGROUPED}: the same with group commit turned off.
 *   <li>{@link #SQLITE_DATA_SOURCE}: a SQLite file reached through a caller's {@code DataSource}.
 *   <li>{@link #POSTGRESQL}: an empty schema per test on the embedded PostgreSQL server, through a
 *       HikariCP pool.
 *   <li>{@link #POSTGRESQL_TRANSACTION_POOLING}: an empty schema per test, through a {@link
 *       TransactionPoolingDataSource}.
 *   <li>{@link #MARIADB}: an empty database per test on the build's own {@link MariaDbServer},
 *       through a HikariCP pool; skipped with one line where the server is not installed.
 * </ul>
 *
 * <p>{@code -Donceonly.test.databases=sqlite,postgresql} (names as above, comma-separated) runs the
 * suites on those databases only, for example one dialect while working on it; unset, every set
 * runs whole.
 */
public final class ContractDatabases {
  private ContractDatabases() {}

  /** Makes the new, empty database of one test. */
  @FunctionalInterface
  public interface Factory {
    /** Returns a new, empty database; a SQLite one is a file in {@code dir}. */
    ContractDatabase create(Path dir);
  }

  /** A SQLite file of its own per test, with group commit (the default). */
  public static final Named<Factory> SQLITE = Named.of("sqlite", SqliteContractDatabase::in);

  /**
   * A SQLite file per test with group commit turned off ({@code groupCommit(1, 0)}): one
   * transaction per step, the other mode the library supports.
   */
  public static final Named<Factory> SQLITE_UNGROUPED =
      Named.of("sqlite ungrouped", SqliteContractDatabase::ungroupedIn);

  /**
   * A SQLite file per test reached through a caller's {@link javax.sql.DataSource}: a new
   * connection per step, so threads meet at SQLite's file lock.
   */
  public static final Named<Factory> SQLITE_DATA_SOURCE =
      Named.of("sqlite data source", SqliteContractDatabase::throughDataSourceIn);

  /** An empty PostgreSQL schema per test on the embedded server, through a HikariCP pool. */
  public static final Named<Factory> POSTGRESQL =
      Named.of("postgresql", dir -> PostgresContractDatabase.create());

  /**
   * An empty PostgreSQL schema per test, through a {@link TransactionPoolingDataSource}: every
   * borrowed connection may be another backend, reset with {@code DISCARD ALL}, as behind PgBouncer
   * in transaction mode, and session state left on a backend fails the test when its pools close
   * ({@link PostgresContractDatabase#close()}). {@link TransactionPoolingDataSourceTest} shows that
   * this data source is able to fail a test: thirty borrowings that each leave a {@code SET} behind
   * are thirty leftovers.
   */
  public static final Named<Factory> POSTGRESQL_TRANSACTION_POOLING =
      Named.of(
          "postgresql transaction pooling", dir -> PostgresContractDatabase.transactionPooled());

  /**
   * An empty MariaDB database per test on the server the build starts ({@link MariaDbServer}),
   * through a HikariCP pool. Skipped, with one line saying why, where {@code mariadbd} is not
   * installed (a failure under {@code CI=true}).
   */
  public static final Named<Factory> MARIADB =
      Named.of("mariadb", dir -> MariaDbContractDatabase.create());

  /**
   * SQLite, PostgreSQL and MariaDB: the suites of the receipt core (receipts, intents, rejections,
   * migrations), which MariaDB runs; the job queue and external effects do not run there yet.
   */
  public static Stream<Named<Factory>> receiptCore() {
    return chosen(SQLITE, POSTGRESQL, MARIADB);
  }

  /**
   * The sets of {@link #withTransactionPooling()} and MariaDB: the intent store, which holds
   * connections across steps and runs on MariaDB.
   */
  public static Stream<Named<Factory>> receiptCoreWithTransactionPooling() {
    return chosen(SQLITE, POSTGRESQL, POSTGRESQL_TRANSACTION_POOLING, MARIADB);
  }

  /**
   * PostgreSQL and MariaDB: the servers whose callers' transactions may read from a snapshot older
   * than a step ({@code REPEATABLE READ}, {@code SERIALIZABLE}).
   */
  public static Stream<Named<Factory>> servers() {
    return chosen(POSTGRESQL, MARIADB);
  }

  /** SQLite and PostgreSQL: the suites whose behaviour does not depend on how connections come. */
  public static Stream<Named<Factory>> sqliteAndPostgresql() {
    return chosen(SQLITE, POSTGRESQL);
  }

  /**
   * SQLite, PostgreSQL and MariaDB: the suites whose behaviour does not depend on how connections
   * come, on every dialect.
   */
  public static Stream<Named<Factory>> everyDialect() {
    return chosen(SQLITE, POSTGRESQL, MARIADB);
  }

  /**
   * SQLite, PostgreSQL, PostgreSQL behind transaction pooling, and MariaDB: the suites that hold
   * connections across steps (queue, queue patterns, worker).
   */
  public static Stream<Named<Factory>> withTransactionPooling() {
    return chosen(SQLITE, POSTGRESQL, POSTGRESQL_TRANSACTION_POOLING, MARIADB);
  }

  /**
   * Every database, for the receipt store: SQLite with and without group commit and through a
   * {@code DataSource}, PostgreSQL, PostgreSQL behind transaction pooling, and MariaDB.
   */
  public static Stream<Named<Factory>> everyDatabase() {
    return chosen(
        SQLITE,
        SQLITE_UNGROUPED,
        SQLITE_DATA_SOURCE,
        POSTGRESQL,
        POSTGRESQL_TRANSACTION_POOLING,
        MARIADB);
  }

  /** The databases of a set that {@code onceonly.test.databases} names, or all of them. */
  @SafeVarargs
  private static Stream<Named<Factory>> chosen(Named<Factory>... set) {
    return Stream.of(set).filter(d -> isChosen(d.getName()));
  }

  /**
   * {@return whether {@code onceonly.test.databases} names the database (such as {@code
   * postgresql}), or is unset}
   */
  public static boolean isChosen(String name) {
    String wanted = System.getProperty("onceonly.test.databases", "").trim();
    if (wanted.isEmpty()) {
      return true;
    }
    Set<String> names =
        Arrays.stream(wanted.split(",")).map(String::trim).collect(Collectors.toSet());
    return names.contains(name);
  }
}
