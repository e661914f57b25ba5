package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.Rejection;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link dev.onceonly.RejectionStore}: idempotent per delivery id, and bounded
 * however hostile the body.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#receiptCore")
public class RejectionStoreContract extends ContractSupport {
  static final String REJECTIONS = "onceonly_rejections";

  /** One stored row, read back through a fresh connection. */
  record Row(String deliveryId, String reason, String body, long bodyBytes) {}

  List<Row> rows() {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT delivery_id, reason, body, body_bytes FROM "
                    + REJECTIONS
                    + " ORDER BY delivery_id")) {
      List<Row> out = new ArrayList<>();
      while (rs.next()) {
        out.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * What the contract promises for a body that may hold lone surrogates or NUL characters: each
   * becomes U+FFFD (PostgreSQL's text cannot hold NUL; both dialects store the same).
   */
  static String wellFormed(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        out.append(c).append(s.charAt(++i));
      } else {
        out.append(Character.isSurrogate(c) || c == '\0' ? '\uFFFD' : c);
      }
    }
    return out.toString();
  }

  static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Fails unless {@code s} is well-formed UTF-16, that is, encodes to UTF-8 without loss. */
  static void assertValidText(String s) {
    try {
      ByteBuffer bytes =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(s));
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).decode(bytes);
    } catch (CharacterCodingException e) {
      throw new AssertionError("not valid text: " + e, e);
    }
  }

  @Test
  void recordIsIdempotentPerDeliveryId() {
    start();
    assertThat(once.rejections().record("1700000000000-0", "{\"muestras\":\"x\"}", "Esquema"))
        .isTrue();
    reopen();
    clock.advance(Duration.ofSeconds(1));
    assertThat(once.rejections().record("1700000000000-0", "another body", "another reason"))
        .isFalse();
    assertThat(once.rejections().record("1700000000000-1", "{}", "Esquema")).isTrue();

    reopen();
    assertThat(rows())
        .containsExactly(
            new Row("1700000000000-0", "Esquema", "{\"muestras\":\"x\"}", 16),
            new Row("1700000000000-1", "Esquema", "{}", 2));
    assertThat(once.rejections().count()).isEqualTo(2);
  }

  @Test
  void listReturnsTheOldestFirstBounded() {
    start();
    for (String id : List.of("c", "a", "b")) {
      once.rejections().record(id, "body " + id, "reason " + id);
      clock.advance(Duration.ofMillis(1));
    }
    reopen();
    List<Rejection> all = once.rejections().list(10);
    assertThat(all).extracting(Rejection::deliveryId).containsExactly("c", "a", "b");
    assertThat(all.get(0).rejectedAt()).isEqualTo(clock.instant().minusMillis(3));
    assertThat(all.get(0).bodyExcerpt()).isEqualTo("body c");
    assertThat(all.get(0).truncated()).isFalse();
    assertThat(once.rejections().list(2))
        .extracting(Rejection::deliveryId)
        .containsExactly("c", "a");
    assertThatThrownBy(() -> once.rejections().list(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theReasonIsCutTo300Characters() {
    start();
    String reason = "El mensaje no coincide con la intención registrada. ".repeat(40);
    once.rejections().record("r-1", "{}", reason);
    // A surrogate pair straddling the cut is dropped whole.
    String straddling = "a".repeat(298) + "\uD83D\uDE00" + "bbbb";
    once.rejections().record("r-2", "{}", straddling);
    once.rejections().record("r-3", "{}", "a".repeat(300));

    reopen();
    List<Row> rows = rows();
    assertThat(rows.get(0).reason()).hasSizeLessThanOrEqualTo(300).endsWith("\u2026");
    assertThat(reason).startsWith(rows.get(0).reason().substring(0, 299));
    assertThat(rows.get(1).reason()).isEqualTo("a".repeat(298) + "\u2026");
    assertValidText(rows.get(1).reason());
    assertThat(rows.get(2).reason()).isEqualTo("a".repeat(300));
  }

  @Test
  void aHostileMebibyteBodyKeepsABoundedValidExcerptAndItsFullSize() {
    start();
    // Multi-byte characters (2, 3 and 4 UTF-8 bytes), lone surrogates of both kinds, controls.
    String unit = "{\"x\":\"ñ€\uD83D\uDE00\uD800\u0000\uDC00\"}\n";
    StringBuilder hostile = new StringBuilder();
    while (hostile.length() < (1 << 20)) {
      hostile.append(unit);
    }
    String body = hostile.toString();
    assertThat(once.rejections().record("1700000000000-7", body, "Esquema desconocido")).isTrue();

    reopen();
    Row row = rows().get(0);
    String safe = wellFormed(body);
    assertThat(row.bodyBytes()).isEqualTo(utf8Length(safe)).isGreaterThan(1 << 20);
    assertValidText(row.body());
    assertThat(utf8Length(row.body())).isLessThanOrEqualTo(8192).isGreaterThan(8192 - 4);
    assertThat(safe).startsWith(row.body());
    Rejection listed = once.rejections().list(1).get(0);
    assertThat(listed.bodyExcerpt()).isEqualTo(row.body());
    assertThat(listed.bodyBytes()).isEqualTo(row.bodyBytes());
    assertThat(listed.truncated()).isTrue();
  }

  @Test
  void theExcerptNeverSplitsACharacter() {
    start(b -> b.rejectionBodyBytes(10));
    once.rejections().record("e-1", "abcdefghi\uD83D\uDE00", "r"); // 9 + 4 bytes
    once.rejections().record("e-2", "ññññññññ", "r"); // 8 x 2 bytes
    once.rejections().record("e-3", "abcdefgh€", "r"); // 8 + 3 bytes
    once.rejections().record("e-4", "0123456789", "r"); // exactly 10
    reopen();
    assertThat(rows())
        .containsExactly(
            new Row("e-1", "r", "abcdefghi", 13),
            new Row("e-2", "r", "ñññññ", 16),
            new Row("e-3", "r", "abcdefgh", 11),
            new Row("e-4", "r", "0123456789", 10));
  }

  @Test
  void theBoundsAreConfigurable() {
    start(b -> b.rejectionReasonChars(16).rejectionBodyBytes(0));
    once.rejections().record("b-1", "{\"a\":1}", "0123456789abcdefXYZ");
    once.rejections().record("b-2", null, null);
    reopen();
    assertThat(rows())
        .containsExactly(
            new Row("b-1", "0123456789abcde\u2026", "", 7), new Row("b-2", "(no reason)", "", 0));
  }

  @Test
  void aBoundLargerThanTheBodyKeepsTheWholeBody() {
    start(b -> b.rejectionBodyBytes(Integer.MAX_VALUE));
    String body = "{\"muestras\":[\"\u00f1\uD83D\uDE00\"]}";
    assertThat(once.rejections().record("w-1", body, "r")).isTrue();
    reopen();
    assertThat(rows()).containsExactly(new Row("w-1", "r", body, utf8Length(body)));
    assertThat(once.rejections().list(1).get(0).truncated()).isFalse();
  }

  @Test
  void aBadDeliveryIdIsRefusedWithoutWriting() {
    start();
    once.rejections().record("kept", "{}", "r");
    Map<String, List<String>> before = snapshot();
    for (String bad : new String[] {"", "   ", "\t\n", null, "x".repeat(201)}) {
      assertThatThrownBy(() -> once.rejections().record(bad, "{}", "r"))
          .as("%s", bad)
          .isInstanceOfSatisfying(
              InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("deliveryId"));
    }
    assertThat(snapshot()).isEqualTo(before);
    assertThat(once.rejections().record("x".repeat(200), "{}", "r")).isTrue();
    assertThat(once.rejections().count()).isEqualTo(2);
  }
}
