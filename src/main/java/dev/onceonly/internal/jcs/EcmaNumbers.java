package dev.onceonly.internal.jcs;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;

/**
 * Serializes doubles the way ECMAScript's {@code Number.prototype.toString} does, as RFC 8785
 * section 3.2.2.3 requires.
 *
 * <p>The shortest round-trip digits come from jackson-core's Schubfach writer; this class only
 * reshapes them. One correction is needed: Java's {@code Double.toString} contract, which Schubfach
 * follows, may return two digits where one already round-trips (it prints {@code 4.9E-324} for the
 * smallest subnormal), while ECMAScript always takes the fewest digits (section 7.1.12.1 of
 * ECMA-262, step 5: {@code k} as small as possible).
 */
public final class EcmaNumbers {
  private static final double TWO_POW_53 = 9007199254740992.0;

  private EcmaNumbers() {}

  /**
   * Returns the ECMAScript string form of a finite double.
   *
   * @param value a finite double
   * @return its canonical JSON number text
   * @throws IllegalArgumentException if the value is NaN or infinite
   */
  public static String toString(double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("not a finite number: " + value);
    }
    if (value == 0) {
      return "0"; // ECMA-262 7.1.12.1 step 2: -0 prints as 0
    }
    if (value == Math.rint(value) && Math.abs(value) < TWO_POW_53) {
      return Long.toString((long) value); // exact integers below 2^53 are their own shortest digits
    }
    StringBuilder out = new StringBuilder(26);
    if (value < 0) {
      out.append('-');
    }
    Decimal decimal = shortest(Math.abs(value));
    format(decimal.digits, decimal.exponent, out);
    return out.toString();
  }

  /** Digits without leading or trailing zeros; value = 0.digits * 10^exponent. */
  private record Decimal(String digits, int exponent) {}

  private static Decimal shortest(double positive) {
    Decimal decimal = parse(NumberOutput.toString(positive, true));
    // Only a subnormal can have a one-digit form that round-trips next to a two-digit one: for a
    // normal double the two differ by at least 1/99 of the value, the spacing of doubles by 2^-52.
    if (decimal.digits.length() == 2 && positive < Double.MIN_NORMAL) {
      Decimal single = singleDigit(positive, decimal);
      if (single != null) {
        return single;
      }
    }
    return decimal;
  }

  /** Returns a one-digit decimal that also round-trips (closest if two do), or null. */
  private static Decimal singleDigit(double positive, Decimal two) {
    int first = two.digits.charAt(0) - '0';
    Decimal down = first == 0 ? null : new Decimal(Integer.toString(first), two.exponent);
    Decimal up =
        first == 9
            ? new Decimal("1", two.exponent + 1)
            : new Decimal(Integer.toString(first + 1), two.exponent);
    boolean downOk = down != null && value(down) == positive;
    boolean upOk = value(up) == positive;
    if (downOk && upOk) {
      BigDecimal exact = new BigDecimal(positive);
      BigDecimal downGap = exact.subtract(exactValue(down)).abs();
      BigDecimal upGap = exactValue(up).subtract(exact).abs();
      return upGap.compareTo(downGap) < 0 ? up : down;
    }
    return downOk ? down : upOk ? up : null;
  }

  private static double value(Decimal decimal) {
    return Double.parseDouble("0." + decimal.digits + "E" + decimal.exponent);
  }

  private static BigDecimal exactValue(Decimal decimal) {
    return new BigDecimal("0." + decimal.digits + "E" + decimal.exponent);
  }

  /**
   * Parses Java's {@code Double.toString} format ({@code 123.45} or {@code 1.2345E-7}) in one pass:
   * significant digits, and n such that the value is 0.digits * 10^n.
   */
  private static Decimal parse(String java) {
    char[] digits = new char[java.length()];
    int k = 0;
    int n = 0;
    boolean afterDot = false;
    for (int i = 0; i < java.length(); i++) {
      char c = java.charAt(i);
      if (c == 'E') {
        n += Integer.parseInt(java, i + 1, java.length(), 10);
        break;
      } else if (c == '.') {
        afterDot = true;
      } else if (k == 0 && c == '0') {
        n -= afterDot ? 1 : 0; // a leading zero after the point shifts the exponent
      } else {
        digits[k++] = c;
        n += afterDot ? 0 : 1;
      }
    }
    while (k > 1 && digits[k - 1] == '0') {
      k--;
    }
    return new Decimal(new String(digits, 0, k), n);
  }

  /** ECMA-262 section 7.1.12.1, steps 6 to 10, for k digits and exponent n. */
  private static void format(String digits, int n, StringBuilder out) {
    int k = digits.length();
    if (k <= n && n <= 21) {
      out.append(digits);
      out.append("0".repeat(n - k));
    } else if (0 < n && n <= 21) {
      out.append(digits, 0, n).append('.').append(digits, n, k);
    } else if (-6 < n && n <= 0) {
      out.append("0.").append("0".repeat(-n)).append(digits);
    } else {
      int exp = n - 1;
      out.append(digits.charAt(0));
      if (k > 1) {
        out.append('.').append(digits, 1, k);
      }
      out.append('e').append(exp < 0 ? '-' : '+').append(Math.abs(exp));
    }
  }
}
