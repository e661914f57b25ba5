package dev.onceonly.contract;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.util.function.Consumer;

/** How {@link GroupCommitTest} opens its per-test SQLite file. */
final class SqliteFiles {
  private SqliteFiles() {}

  static Path file(Path dir) {
    return dir.resolve("onceonly.db");
  }

  static OnceOnly open(Path dir, MutableClock clock, Consumer<OnceOnlyBuilder> customize) {
    OnceOnlyBuilder builder = OnceOnly.builder().sqlite(file(dir)).clock(clock);
    customize.accept(builder);
    return builder.build();
  }
}
