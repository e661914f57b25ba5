package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.testing.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The builder refuses bad settings at once, with a message naming the setting and its bound. */
class OnceOnlyBuilderTest {
  @TempDir Path dir;

  static Stream<Arguments> badDurations() {
    Duration zero = Duration.ZERO;
    Duration negative = Duration.ofMillis(-1);
    return Stream.of(
        Arguments.of("resultRetention", zero, "resultRetention must be > 0"),
        Arguments.of("resultRetention", negative, "resultRetention must be > 0"),
        Arguments.of("busyTimeout", zero, "busyTimeout must be > 0"),
        Arguments.of("busyTimeout", negative, "busyTimeout must be > 0"),
        Arguments.of("tombstoneRetention", negative, "tombstoneRetention must be >= 0"));
  }

  static Consumer<Duration> setter(OnceOnlyBuilder b, String name) {
    return switch (name) {
      case "resultRetention" -> b::resultRetention;
      case "busyTimeout" -> b::busyTimeout;
      case "tombstoneRetention" -> b::tombstoneRetention;
      default -> throw new IllegalArgumentException(name);
    };
  }

  @ParameterizedTest(name = "{0}({1})")
  @MethodSource("badDurations")
  void aDurationOutOfRangeIsRefused(String name, Duration value, String message) {
    Consumer<Duration> set = setter(OnceOnly.builder(), name);
    assertThatThrownBy(() -> set.accept(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
    assertThatThrownBy(() -> set.accept(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining(name);
  }

  @Test
  void zeroTombstoneRetentionAndTheSmallestPositiveDurationsAreAccepted() {
    OnceOnlyBuilder b = OnceOnly.builder();
    assertThat(b.tombstoneRetention(Duration.ZERO)).isSameAs(b);
    assertThat(b.resultRetention(Duration.ofMillis(1))).isSameAs(b);
    assertThat(b.busyTimeout(Duration.ofMillis(1))).isSameAs(b);
  }

  @Test
  void aCurrentTransactionNeedsADataSourceAndNothingIsOpened() {
    Path file = dir.resolve("joined.db");
    OnceOnlyBuilder b =
        OnceOnly.builder().sqlite(file).currentTransaction(CurrentTransaction.none());
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("currentTransaction needs a dataSource: the caller's transactions run on one");
    assertThat(file).doesNotExist();
    assertThatThrownBy(() -> OnceOnly.builder().currentTransaction(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void rejectionBoundsAreChecked() {
    OnceOnlyBuilder b = OnceOnly.builder();
    assertThatThrownBy(() -> b.rejectionReasonChars(15))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rejectionReasonChars must be >= 16");
    assertThatThrownBy(() -> b.rejectionBodyBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rejectionBodyBytes must be >= 0");
    assertThat(b.rejectionReasonChars(16).rejectionBodyBytes(0)).isSameAs(b);
  }

  @Test
  void nullsAndBadPatternsAreRefused() {
    OnceOnlyBuilder b = OnceOnly.builder();
    assertThatThrownBy(() -> b.sqlite(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.dataSource(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.connection(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.clock(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.canonicalizer(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.synchronous(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.validator(null, args -> {}))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.validator("op", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.keyPattern("[a-")).isInstanceOf(PatternSyntaxException.class);
    assertThatThrownBy(() -> b.scopePattern("(")).isInstanceOf(PatternSyntaxException.class);
  }

  @Test
  void operationRulesRefuseBadSettingsAtOnce() {
    OnceOnlyBuilder b = OnceOnly.builder();
    OperationRules rules = OperationRules.builder().keyPattern("rf-[0-9]{4}").build();
    assertThat(b.operation("refund", rules)).isSameAs(b);
    assertThatThrownBy(() -> b.operation("not an operation!", rules))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("operation must match");
    assertThatThrownBy(() -> b.operation(null, rules)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> b.operation("refund", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("rules");
    OperationRules.Builder r = OperationRules.builder();
    assertThatThrownBy(() -> r.keyPattern("[a-")).isInstanceOf(PatternSyntaxException.class);
    assertThatThrownBy(() -> r.keyPattern(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> r.validator(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("validator");
    OperationRules none = OperationRules.builder().build();
    assertThat(none.keyPattern()).isEmpty();
    assertThat(none.requiresRegisteredIntent()).isFalse();
    assertThat(rules.keyPattern()).contains("rf-[0-9]{4}");
  }

  @Test
  void exactlyOneSourceMustBeSet() throws Exception {
    Path file = dir.resolve("b.db");
    assertThatThrownBy(() -> OnceOnly.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exactly one");
    try (Connection c = Db.open(file)) {
      assertThatThrownBy(() -> OnceOnly.builder().sqlite(file).connection(c).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("exactly one");
    }
    assertThat(Files.exists(file)).isTrue(); // created by the driver above, left empty
    assertThat(Db.count(file, "SELECT COUNT(*) FROM sqlite_master")).isZero();
  }

  @Test
  void journalModeDeleteOpensARollbackJournalFileAndWorks() throws Exception {
    Path file = dir.resolve("rollback.db");
    assertThatThrownBy(() -> OnceOnly.builder().journalMode(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("journalMode");
    try (OnceOnly once =
        OnceOnly.builder().sqlite(file).journalMode(OnceOnly.JournalMode.DELETE).build()) {
      once.intents().register(IntentKey.of("s", "k"), "job", java.util.Map.of());
      assertThat(Files.exists(dir.resolve("rollback.db-shm"))).isFalse();
      assertThat(Files.exists(dir.resolve("rollback.db-wal"))).isFalse();
    }
    assertThat(Db.strings(file, "PRAGMA journal_mode")).containsExactly("delete");
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_intents")).isOne();
  }

  @Test
  void journalModeDeleteFailsTheOpenWhileAnotherStoreHoldsTheFileInWal() throws Exception {
    Path file = dir.resolve("shared.db");
    try (OnceOnly wal = OnceOnly.openSqlite(file)) {
      wal.intents().register(IntentKey.of("s", "k"), "job", java.util.Map.of());
      assertThatThrownBy(
              () ->
                  OnceOnly.builder()
                      .sqlite(file)
                      .journalMode(OnceOnly.JournalMode.DELETE)
                      .busyTimeout(Duration.ofMillis(100))
                      .build())
          .isInstanceOfSatisfying(
              StoreException.class, e -> assertThat(e.vendorCode() & 0xFF).isEqualTo(5))
          .hasMessageContaining("cannot set journal_mode delete");
      assertThat(wal.intents().find(IntentKey.of("s", "k"))).isPresent();
    }
    assertThat(Db.strings(file, "PRAGMA journal_mode")).containsExactly("wal");
  }
}
