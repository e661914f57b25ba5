package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit Jupiter extension that gives every test a fresh OnceOnly store on a real database, a
 * {@link MutableClock} the store reads its time from, and a {@link Reopen} handle that restarts the
 * store as a new process would. Test methods (and {@code @BeforeEach} methods) take {@link
 * OnceOnly}, {@link MutableClock} and {@link Reopen} parameters; the store is closed and its file
 * deleted after each test.
 *
 * <pre>{@code
 * @RegisterExtension
 * final OnceOnlyExtension store =
 *     OnceOnlyExtension.sqlite()
 *         .startingAt(Instant.parse("2026-03-01T09:00:00Z"))
 *         .configure(b -> b.resultRetention(Duration.ofDays(7)));
 *
 * @Test
 * void retriesAfterBackoff(OnceOnly once, MutableClock clock) { ... }
 * }</pre>
 *
 * <p>On SQLite (the default, and {@link OnceOnlyTest}) each test gets its own file in a new
 * temporary folder. On PostgreSQL ({@link #postgresql(DataSource)}) and MariaDB ({@link
 * #mariadb(DataSource)}) each test gets its own tables under a fresh random table prefix on the
 * caller's data source, dropped after the test; the database itself and the data source belong to
 * the caller.
 *
 * <p>Register it on an instance field (or through {@link OnceOnlyTest}): it holds one test's store
 * at a time, so tests of one class must not run concurrently on one extension instance. Immutable
 * configuration: {@link #startingAt} and {@link #configure} return new extensions.
 */
public final class OnceOnlyExtension
    implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
  /** Where every test's clock starts unless {@link #startingAt} says otherwise. */
  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

  private static final SecureRandom RANDOM = new SecureRandom();

  private final DataSource dataSource;
  private final Instant start;
  private final UnaryOperator<OnceOnlyBuilder> configure;
  private volatile TestStore current;

  /** The default: SQLite, the clock at {@link #DEFAULT_START}, the builder's defaults. */
  public OnceOnlyExtension() {
    this(null, DEFAULT_START, b -> b);
  }

  private OnceOnlyExtension(
      DataSource dataSource, Instant start, UnaryOperator<OnceOnlyBuilder> configure) {
    this.dataSource = dataSource;
    this.start = start;
    this.configure = configure;
  }

  /** {@return an extension giving each test a store on a new temporary SQLite file} */
  public static OnceOnlyExtension sqlite() {
    return new OnceOnlyExtension();
  }

  /**
   * Returns an extension giving each test a store on PostgreSQL, in tables under a fresh table
   * prefix, dropped after the test.
   *
   * @param dataSource the caller's data source; never closed by the extension
   * @return the extension
   */
  public static OnceOnlyExtension postgresql(DataSource dataSource) {
    return new OnceOnlyExtension(
        Objects.requireNonNull(dataSource, "dataSource"), DEFAULT_START, b -> b);
  }

  /**
   * Returns an extension giving each test a store on MariaDB, in tables under a fresh table prefix
   * in the data source's database, dropped after the test.
   *
   * @param dataSource the caller's data source; never closed by the extension
   * @return the extension
   */
  public static OnceOnlyExtension mariadb(DataSource dataSource) {
    return postgresql(dataSource);
  }

  /**
   * Returns this extension with each test's clock starting elsewhere.
   *
   * @param instant where the clock starts
   * @return a new extension
   */
  public OnceOnlyExtension startingAt(Instant instant) {
    return new OnceOnlyExtension(dataSource, Objects.requireNonNull(instant, "instant"), configure);
  }

  /**
   * Returns this extension with builder settings of the caller's (retention, validators, retry
   * rules...), applied on every open and reopen after the database, the table prefix and the clock
   * are set. It must not set another database or clock.
   *
   * @param settings applies the caller's settings and returns the builder
   * @return a new extension
   */
  public OnceOnlyExtension configure(UnaryOperator<OnceOnlyBuilder> settings) {
    return new OnceOnlyExtension(dataSource, start, Objects.requireNonNull(settings, "settings"));
  }

  /** {@return the store of the running test} */
  public OnceOnly once() {
    return running().once;
  }

  /** {@return the clock of the running test's store} */
  public MutableClock clock() {
    return running().clock;
  }

  /** {@return the restart handle of the running test's store} */
  public Reopen reopen() {
    return running().reopen;
  }

  /** {@return the SQLite file of the running test, or empty on PostgreSQL} */
  public Optional<Path> file() {
    return Optional.ofNullable(running().file);
  }

  private TestStore running() {
    TestStore s = current;
    if (s == null) {
      throw new IllegalStateException("no test is running: the store exists from beforeEach on");
    }
    return s;
  }

  /**
   * Opens the test's store.
   *
   * @param context the test's context
   */
  @Override
  public void beforeEach(ExtensionContext context) {
    current = new TestStore();
  }

  /**
   * Closes the test's store and removes its file or tables.
   *
   * @param context the test's context
   */
  @Override
  public void afterEach(ExtensionContext context) {
    TestStore s = current;
    current = null;
    if (s != null) {
      s.close();
    }
  }

  /**
   * Tells whether a parameter is one this extension provides.
   *
   * @param parameter the parameter
   * @param context the test's context
   * @return whether its type is {@link OnceOnly}, {@link MutableClock} or {@link Reopen}
   */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == OnceOnly.class || type == MutableClock.class || type == Reopen.class;
  }

  /**
   * Provides the running test's store, clock or restart handle.
   *
   * @param parameter the parameter
   * @param context the test's context
   * @return the value
   */
  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    TestStore s = current;
    if (s == null) {
      throw new ParameterResolutionException(
          "the OnceOnly store exists from beforeEach on, not in static or class-level methods");
    }
    Class<?> type = parameter.getParameter().getType();
    if (type == MutableClock.class) {
      return s.clock;
    }
    return type == Reopen.class ? s.reopen : s.once;
  }

  /** One test's store: its database, its clock, the instance open now. */
  private final class TestStore {
    final MutableClock clock = new MutableClock(start);
    final Path folder;
    final Path file;
    final String prefix;
    final Reopen reopen = new Reopen(this::restart, () -> this.once);
    volatile OnceOnly once;

    TestStore() {
      if (dataSource == null) {
        try {
          folder = Files.createTempDirectory("onceonly-test");
        } catch (IOException e) {
          throw new UncheckedIOException("cannot create a folder for the test's store", e);
        }
        file = folder.resolve("store.db");
        prefix = OnceOnly.DEFAULT_TABLE_PREFIX;
      } else {
        folder = null;
        file = null;
        prefix = "t" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36) + "_";
      }
      once = open();
    }

    private OnceOnly open() {
      OnceOnlyBuilder b = OnceOnly.builder().clock(clock).tablePrefix(prefix);
      b = file != null ? b.sqlite(file) : b.dataSource(dataSource);
      return configure.apply(b).build();
    }

    private synchronized OnceOnly restart() {
      once.close();
      once = open();
      return once;
    }

    synchronized void close() {
      once.close();
      if (folder != null) {
        deleteFolder();
      } else {
        dropTables();
      }
    }

    private void deleteFolder() {
      try (Stream<Path> files = Files.walk(folder)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the test's store in " + folder, e);
      }
    }

    private void dropTables() {
      try (Connection c = dataSource.getConnection()) {
        List<String> tables = new ArrayList<>();
        DatabaseMetaData meta = c.getMetaData();
        try (ResultSet rs = meta.getTables(null, null, prefix + "%", new String[] {"TABLE"})) {
          while (rs.next()) {
            String name = rs.getString("TABLE_NAME");
            if (name.startsWith(prefix)) { // '_' in the pattern matches any character
              tables.add(name);
            }
          }
        }
        try (Statement st = c.createStatement()) {
          for (String table : tables) {
            st.execute("DROP TABLE IF EXISTS " + table);
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException("cannot drop the test's tables " + prefix + "*", e);
      }
    }
  }
}
