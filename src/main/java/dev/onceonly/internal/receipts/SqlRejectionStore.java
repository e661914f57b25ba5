package dev.onceonly.internal.receipts;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.Rejection;
import dev.onceonly.RejectionStore;
import dev.onceonly.internal.jcs.Jcs;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The {@link RejectionStore} on SQL. */
public final class SqlRejectionStore implements RejectionStore {
  private static final int MAX_DELIVERY_ID = 200;

  private final StoreContext core;

  /** Creates the store. */
  public SqlRejectionStore(StoreContext core) {
    this.core = core;
  }

  @Override
  public boolean record(String deliveryId, String body, String reason) {
    checkDeliveryId(deliveryId);
    String safeBody = storable(body == null ? "" : body);
    String excerpt = utf8Prefix(safeBody, core.rejectionBodyBytes());
    long bodyBytes = utf8Length(safeBody);
    String cutReason = cut(Objects.requireNonNullElse(reason, "(no reason)"));
    return core.database().write(c -> insert(c, deliveryId, cutReason, excerpt, bodyBytes) == 1);
  }

  private int insert(Connection c, String id, String reason, String excerpt, long bytes)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().insertRejection)) {
      ps.setString(1, id);
      ps.setString(2, reason);
      ps.setString(3, excerpt);
      ps.setLong(4, bytes);
      core.times().set(ps, 5, core.clock().millis());
      return ps.executeUpdate();
    }
  }

  /**
   * Refuses unpaired surrogates and control characters too: the driver would store {@code x} +
   * U+D800 and {@code x} + U+DBFF as the same {@code x?}, and the second rejection would be taken
   * for a repetition of the first.
   */
  private static void checkDeliveryId(String deliveryId) {
    if (deliveryId == null || deliveryId.isBlank() || deliveryId.length() > MAX_DELIVERY_ID) {
      throw new InvalidRequestException(
          "deliveryId", "must be 1 to " + MAX_DELIVERY_ID + " characters, not blank");
    }
    Identifiers.check("deliveryId", deliveryId);
  }

  private String cut(String reason) {
    return cut(reason, core.rejectionReasonChars());
  }

  /**
   * Returns {@code text} made {@link #storable} and cut to {@code max} characters, the last one an
   * ellipsis when cut, never inside a surrogate pair.
   *
   * @param text the text
   * @param max the most characters, at least 2
   * @return the bounded text
   */
  public static String cut(String text, int max) {
    String clean = storable(text);
    if (clean.length() <= max) {
      return clean;
    }
    int end = max - 1;
    if (Character.isHighSurrogate(clean.charAt(end - 1))) {
      end--;
    }
    return clean.substring(0, end) + "\u2026";
  }

  /** Returns the longest prefix of {@code s} whose UTF-8 form fits in {@code maxBytes}. */
  static String utf8Prefix(String s, int maxBytes) {
    CharsetEncoder encoder =
        StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    CharBuffer in = CharBuffer.wrap(s);
    // No UTF-16 unit takes more than 3 UTF-8 bytes: never allocate the bound itself, which may be
    // as large as Integer.MAX_VALUE when a caller wants whole bodies kept.
    int capacity = (int) Math.min(maxBytes, 3L * s.length());
    encoder.encode(in, ByteBuffer.allocate(capacity), true); // stops before a char that won't fit
    return s.substring(0, in.position());
  }

  private static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /**
   * A hostile body may hold unpaired surrogates or NUL characters; the database gets U+FFFD instead
   * (PostgreSQL's {@code text} cannot hold NUL, and both dialects store the same).
   */
  public static String storable(String s) {
    if (Jcs.loneSurrogate(s) < 0 && s.indexOf('\0') < 0) {
      return s;
    }
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

  @Override
  public List<Rejection> list(int limit) {
    SqlIntentStore.checkLimit(limit);
    return core.database().read(c -> list(c, limit));
  }

  private List<Rejection> list(Connection c, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().listRejections)) {
      ps.setInt(1, limit);
      List<Rejection> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Rejection(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getLong(4),
                  core.times().instant(rs, 5)));
        }
      }
      return out;
    }
  }

  @Override
  public long count() {
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(core.statements().countRejections);
                  ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
              }
            });
  }
}
