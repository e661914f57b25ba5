package dev.onceonly.redis;

import dev.onceonly.InvalidRequestException;
import java.util.Locale;

/**
 * Refuses the text a stream entry's field must not hold: control characters (Unicode category Cc)
 * and unpaired surrogates, the same characters the stores refuse in every identifier.
 *
 * <p>Why a copy of the stores' check instead of a call into the library's internal packages: an
 * exported package depends only on the public API, so that the implementation can change freely.
 * Why refuse unpaired surrogates: the client encodes text as UTF-8 and sends an unpaired surrogate
 * as {@code ?}, so two scopes would arrive as one.
 */
final class FieldText {
  private FieldText() {}

  /**
   * Returns {@code value} if it holds no control character and no unpaired surrogate.
   *
   * @throws InvalidRequestException naming {@code field} and the first such character otherwise
   */
  static String check(String field, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c) || Character.isISOControl(c)) {
        throw new InvalidRequestException(
            field,
            String.format(
                Locale.ROOT,
                "must not hold control characters or unpaired surrogates, found U+%04X at index %d",
                (int) c,
                i));
      }
    }
    return value;
  }
}
