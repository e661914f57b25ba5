package dev.onceonly.internal.jcs;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * ECMAScript's {@code Number::toString} of a double (ECMA-262 section 7.1.12.1), derived from a
 * Java rendering of it with {@link BigDecimal} arithmetic only: the independent reference that
 * {@link EcmaNumbersProperties} holds {@link EcmaNumbers} to.
 *
 * <p>Java's contract (the JDK's {@code Double.toString} from 19 on, jackson-core's Schubfach on any
 * JDK) already gives the fewest digits that round-trip and, among those, the closest; ECMAScript
 * differs only where one digit would do and Java keeps two. So the Java text is checked to
 * round-trip, then every decimal one digit shorter that could round-trip (the value rounded down
 * and up, exactly) is tried, and the layout follows steps 6 to 10 with a StringBuilder.
 */
final class EcmaReference {
  private EcmaReference() {}

  /** Returns the ECMAScript text of {@code value}, given a Java rendering of it. */
  static String of(double value, String java) {
    if (value == 0) {
      return "0";
    }
    BigDecimal decimal = new BigDecimal(java).abs().stripTrailingZeros();
    if (Double.parseDouble(decimal.toString()) != Math.abs(value)) {
      throw new AssertionError("the Java text " + java + " does not round-trip");
    }
    decimal = shorter(Math.abs(value), decimal);
    String digits = decimal.unscaledValue().toString();
    int k = digits.length();
    int n = k - decimal.scale(); // value = 0.digits × 10^n
    return (value < 0 ? "-" : "") + layout(digits, k, n);
  }

  /**
   * One digit fewer, if a decimal that short rounds to the value: the closer, the even on a tie.
   */
  private static BigDecimal shorter(double positive, BigDecimal decimal) {
    int precision = decimal.precision();
    if (precision == 1) {
      return decimal;
    }
    BigDecimal exact = new BigDecimal(positive);
    MathContext fewer = new MathContext(precision - 1, RoundingMode.FLOOR);
    BigDecimal down = exact.round(fewer).stripTrailingZeros();
    BigDecimal up =
        exact.round(new MathContext(precision - 1, RoundingMode.CEILING)).stripTrailingZeros();
    boolean downOk = down.signum() > 0 && Double.parseDouble(down.toString()) == positive;
    boolean upOk = Double.parseDouble(up.toString()) == positive;
    if (downOk && upOk) {
      int c = exact.subtract(down).compareTo(up.subtract(exact));
      boolean downEven = down.unscaledValue().testBit(0) == false;
      return c < 0 || (c == 0 && downEven) ? down : up;
    }
    return downOk ? down : upOk ? up : decimal;
  }

  private static String layout(String digits, int k, int n) {
    StringBuilder text = new StringBuilder();
    if (k <= n && n <= 21) {
      text.append(digits).append("0".repeat(n - k));
    } else if (0 < n && n <= 21) {
      text.append(digits, 0, n).append('.').append(digits, n, k);
    } else if (-6 < n && n <= 0) {
      text.append("0.").append("0".repeat(-n)).append(digits);
    } else {
      text.append(digits.charAt(0));
      if (k > 1) {
        text.append('.').append(digits, 1, k);
      }
      text.append('e').append(n - 1 < 0 ? '-' : '+').append(Math.abs(n - 1));
    }
    return text.toString();
  }
}
