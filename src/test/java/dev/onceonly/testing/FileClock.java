package dev.onceonly.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * A clock that several processes share: the epoch milliseconds in an eight-byte file mapped into
 * each, so that a test moves the clock of its child JVMs as {@link MutableClock} moves a store's in
 * one process. Only the test moves it.
 */
public final class FileClock implements InstantSource, AutoCloseable {
  private final FileChannel channel;
  private final MappedByteBuffer millis;

  private FileClock(Path file) {
    try {
      channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      millis = channel.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates the file at {@code start}. */
  public static FileClock create(Path file, Instant start) {
    FileClock clock = new FileClock(file);
    clock.set(start);
    return clock;
  }

  /** Maps the file another process created. */
  public static FileClock open(Path file) {
    return new FileClock(file);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.getLong(0));
  }

  @Override
  public long millis() {
    return millis.getLong(0);
  }

  public synchronized void set(Instant instant) {
    millis.putLong(0, instant.toEpochMilli());
  }

  public synchronized void advance(Duration d) {
    set(instant().plus(d));
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
