package dev.onceonly.internal.jcs;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

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
    ByteSink out = new ByteSink(32);
    write(value, out);
    return out.toAsciiString();
  }

  /**
   * Writes the ECMAScript form of a finite double, as {@link #toString(double)} returns it, without
   * building it as a String first: the canonicalizer writes many numbers, and the intermediate
   * Strings and records cost more than the reshaping itself.
   *
   * @param value a finite double
   * @param out where the number text goes
   * @throws IllegalArgumentException if the value is NaN or infinite
   */
  static void write(double value, ByteSink out) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("not a finite number: " + value);
    }
    double positive = Math.abs(value);
    if (value == Math.rint(value) && positive < TWO_POW_53) {
      // Exact integers below 2^53 are their own shortest digits; -0 prints as 0 (ECMA-262
      // 7.1.12.1 step 2), which (long) -0.0 == 0 gives.
      out.writeLong((long) value);
      return;
    }
    if (value < 0) {
      out.write((byte) '-');
    }
    byte[] digits = out.digitScratch();
    String java = NumberOutput.toString(positive, true);
    // Parses Java's Double.toString format (123.45 or 1.2345E-7) in one pass: the k significant
    // digits, and n such that the value is 0.digits * 10^n.
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
        digits[k++] = (byte) c;
        n += afterDot ? 0 : 1;
      }
    }
    while (k > 1 && digits[k - 1] == '0') {
      k--;
    }
    // Only a subnormal can have a one-digit form that round-trips next to a two-digit one: for a
    // normal double the two differ by at least 1/99 of the value, the spacing of doubles by 2^-52.
    if (k == 2 && positive < Double.MIN_NORMAL) {
      Decimal two = new Decimal(new String(digits, 0, 2, StandardCharsets.US_ASCII), n);
      Decimal single = singleDigit(positive, two);
      if (single != null) {
        digits[0] = (byte) single.digits.charAt(0);
        k = 1;
        n = single.exponent;
      }
    }
    format(digits, k, n, out);
  }

  /** Digits without leading or trailing zeros; value = 0.digits * 10^exponent. */
  private record Decimal(String digits, int exponent) {}

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

  /** ECMA-262 section 7.1.12.1, steps 6 to 10, for the k digits and exponent n. */
  private static void format(byte[] digits, int k, int n, ByteSink out) {
    if (k <= n && n <= 21) {
      out.write(digits, 0, k);
      out.writeZeros(n - k);
    } else if (0 < n && n <= 21) {
      out.write(digits, 0, n);
      out.write((byte) '.');
      out.write(digits, n, k - n);
    } else if (-6 < n && n <= 0) {
      out.write((byte) '0');
      out.write((byte) '.');
      out.writeZeros(-n);
      out.write(digits, 0, k);
    } else {
      int exp = n - 1;
      out.write(digits[0]);
      if (k > 1) {
        out.write((byte) '.');
        out.write(digits, 1, k - 1);
      }
      out.write((byte) 'e');
      out.write((byte) (exp < 0 ? '-' : '+'));
      out.writeInt(Math.abs(exp));
    }
  }
}
