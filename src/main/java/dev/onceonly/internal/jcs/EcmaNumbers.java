package dev.onceonly.internal.jcs;

/**
 * Serializes doubles the way ECMAScript's {@code Number.prototype.toString} does, as RFC 8785
 * section 3.2.2.3 requires.
 *
 * <p>Three kinds of doubles, most of those in real arguments, get their digits here directly:
 * integers below 2^53, decimals with at most three fractional digits, and integers from 2^53 to
 * 2^63 (see {@link #writeFewDecimals} and {@link #writeLargeInteger} for why the digits are the
 * same). The shortest round-trip digits of the others come from {@link Schubfach}, as integers
 * written straight into the buffer's digit scratch, which this class lays out the ECMAScript way.
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
    if (positive < TWO_POW_53
        ? writeFewDecimals(positive, out)
        : writeLargeInteger(positive, out)) {
      return;
    }
    byte[] digits = out.digitScratch();
    int kn = Schubfach.digits(positive, digits);
    format(digits, kn & 31, kn >> 5, out);
  }

  /** Powers of ten that {@link #writeFewDecimals} tries, all exact doubles. */
  private static final double[] TEN_POW = {1, 10, 100, 1000};

  /** Below this, a decimal has at most 15 significant digits: see {@link #writeFewDecimals}. */
  private static final double TEN_POW_15 = 1e15;

  /**
   * Writes a double that is the nearest to a decimal with one to three fractional digits and at
   * most 15 significant digits (prices, measures: most non-integral numbers in arguments) without
   * the general shortest-digits search, and returns whether it did.
   *
   * <p>Why this gives the digits ECMAScript prints: for k = 1, 2, 3 in turn, {@code m} is the
   * integer nearest to {@code positive * 10^k}; if {@code m / 10^k}, a correctly rounded division
   * of exact doubles, is {@code positive}, then the decimal m × 10^-k rounds to the value. With
   * fewer than 10^15 as m, the doubles are so much closer together than 10^-k that no other decimal
   * with k fractional digits rounds to it, and the product's rounding error (below 0.2) cannot move
   * {@code m} off that one decimal, so a failed smaller k had no such decimal either. Fewer
   * fractional digits means fewer significant digits here, so the first k found gives the unique
   * shortest digits (ECMA-262 7.1.12.1 step 5, no tie to break), and m does not end in 0 (m / 10
   * would have been found at k - 1; k = 0 is the integer case, handled before). A value of at least
   * 10^-3 and below 10^14 prints in positional form, integer part, point, k digits.
   */
  private static boolean writeFewDecimals(double positive, ByteSink out) {
    for (int k = 1; k < TEN_POW.length; k++) {
      double product = positive * TEN_POW[k];
      double scaled = Math.rint(product);
      if (scaled >= TEN_POW_15) {
        return false;
      }
      // A product farther than 0.2 from its integer cannot pass (see above): skip the division,
      // which most doubles with many digits would otherwise pay three times.
      if (Math.abs(product - scaled) <= 0.25 && scaled / TEN_POW[k] == positive) {
        long m = (long) scaled;
        long unit = (long) TEN_POW[k];
        out.writeLong(m / unit);
        out.write((byte) '.');
        out.writeFraction(m % unit, k);
        return true;
      }
    }
    return false;
  }

  /** 2^63, the first double that is not below any long. */
  private static final double TWO_POW_63 = 0x1p63;

  /**
   * Writes a double from 2^53 to 2^63, an integer that a long holds but whose last digits are not
   * significant (large ids, longs above 2^53 in a tree), without the general shortest-digits
   * search, and returns whether it did.
   *
   * <p>Why this gives the digits ECMAScript prints: the value is an integer below 10^21, printed as
   * its significant digits followed by zeros (ECMA-262 7.1.12.1 step 6). Fewest significant digits
   * means the largest e such that some multiple of 10^e rounds to the value; the multiple nearest
   * the value (an even quotient when two are as near, as step 5 breaks ties) is then the one to
   * print. Except at a power of two, which is left to the general path, the values rounding to a
   * double lie symmetrically around it, so if a multiple of 10^(e+1) rounds to it, so does the
   * nearest multiple of 10^e (it is at least as near): trying e = 1, 2, ... and stopping at the
   * first that fails finds the largest. The long to double conversion rounds as parsing does, to
   * nearest, ties to even.
   */
  private static boolean writeLargeInteger(double positive, ByteSink out) {
    if (positive >= TWO_POW_63) {
      return false;
    }
    long value = (long) positive; // exact: every double from 2^53 up is an integer
    if ((value & (value - 1)) == 0) {
      return false; // a power of two: the values rounding to it lie closer below than above
    }
    long digits = value;
    int zeros = 0;
    long unit = 10;
    for (int e = 1; e <= 18; e++, unit *= 10) {
      long remainder = value % unit;
      long lower = value - remainder;
      long half = unit / 2;
      boolean up = remainder > half || (remainder == half && ((lower / unit) & 1) == 1);
      if (up && lower > Long.MAX_VALUE - unit) {
        return false; // the multiple above is no long; rare enough for the general path
      }
      long nearest = up ? lower + unit : lower;
      if ((double) nearest != positive) {
        break;
      }
      digits = nearest / unit;
      zeros = e;
    }
    out.writeLong(digits);
    out.writeZeros(zeros);
    return true;
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
