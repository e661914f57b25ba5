package dev.onceonly.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Collects what one class logs through {@code System.Logger} (which goes to java.util.logging when
 * no other backend is present) during each test: {@code @RegisterExtension final LogCapture log =
 * LogCapture.of(Worker.class);} then {@code log.records()}.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {
  private final Logger jul;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          records.add(r);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private LogCapture(Class<?> logging) {
    this.jul = Logger.getLogger(logging.getName());
  }

  /** Captures the logger named after {@code logging}, as {@code System.getLogger} names it. */
  public static LogCapture of(Class<?> logging) {
    return new LogCapture(logging);
  }

  /** Returns the records logged so far in this test, live. */
  public List<LogRecord> records() {
    return records;
  }

  /** Returns the records logged so far in this test at exactly {@code level}. */
  public List<LogRecord> at(Level level) {
    return records.stream().filter(r -> r.getLevel() == level).toList();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    records.clear();
    jul.addHandler(handler);
    jul.setLevel(Level.ALL);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    jul.removeHandler(handler);
    jul.setLevel(null);
  }
}
