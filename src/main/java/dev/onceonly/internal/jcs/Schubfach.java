package dev.onceonly.internal.jcs;

import java.math.BigInteger;

/**
 * Finds the shortest decimal that rounds to a double, as ECMAScript's {@code Number::toString}
 * wants it (ECMA-262 section 7.1.12.1 step 5, which RFC 8785 section 3.2.2.3 requires): the fewest
 * significant digits, and of those the decimal closest to the double, the even one on a tie.
 *
 * <p>The algorithm is Raffaello Giulietti's Schubfach (the paper "The Schubfach way to render
 * doubles"; the reference implementation is the JDK's {@code jdk.internal.math.DoubleToDecimal},
 * behind {@code Double.toString} since JDK 19, and jackson-core's {@code io.schubfach} port, MIT
 * licensed, behind its {@code NumberOutput}); the names below are the paper's. It is written here,
 * not taken from a library, because none on Maven Central hands out the digits and the exponent as
 * integers: the JDK and jackson-core return a String in Java's format, which the canonicalizer had
 * to parse back, and that parse, not the search, was where its time went on documents full of
 * 17-digit doubles. Two departures from the JDK's version, both for ECMAScript's rule, which
 * differs from Java's only here: the one-digit shorter candidate is tried for every two-digit
 * result (the JDK keeps two digits where one would do, {@code 4.9E-324}), and the smallest
 * subnormals get no extra digit.
 *
 * <p>The table of 126-bit approximations of powers of ten (section 9 of the paper: {@code g} such
 * that {@code (g - 1) 2^r <= 10^-k < g 2^r}, {@code 2^125 <= g < 2^126}) is computed once, exactly,
 * with {@link BigInteger}, instead of shipping 1,234 literals.
 */
final class Schubfach {
  private static final int P = 53; // precision of a double, the hidden bit included
  private static final int Q_MIN = -1074; // exponent of the subnormals' unit
  private static final long C_MIN = 1L << (P - 1);
  private static final long T_MASK = C_MIN - 1;
  private static final int BQ_MASK = 0x7FF;
  private static final long MASK_63 = Long.MAX_VALUE;
  private static final int K_MIN = -324;
  private static final int K_MAX = 292;

  /** {@code floor(2^64 / 10)} rounded so that a product's high half is {@code floor(s / 10)}. */
  private static final long TENTH = 1_844_674_407_370_955_168L;

  private static final long[] G = powersOfTen();

  private Schubfach() {}

  /**
   * Writes the shortest digits of a positive finite double as ASCII into {@code into[0, k)}, with
   * no trailing zero, and returns {@code n << 5 | k}, where the double is nearest to {@code
   * 0.digits × 10^n}: ECMA-262's k and n.
   *
   * @param positive a finite double greater than zero
   * @param into at least 17 bytes
   */
  static int digits(double positive, byte[] into) {
    long bits = Double.doubleToRawLongBits(positive);
    long t = bits & T_MASK;
    int bq = (int) (bits >>> (P - 1)) & BQ_MASK;
    if (bq == 0) {
      return decimal(Q_MIN, t, into); // subnormal
    }
    return decimal(bq + Q_MIN - 1, C_MIN | t, into);
  }

  /** Figure 7 of the paper, with figure 9's integer computations, for the double c × 2^q. */
  private static int decimal(int q, long c, byte[] into) {
    int out = (int) c & 1; // an even c keeps the bounds of its rounding interval
    long cb = c << 2;
    long cbr = cb + 2;
    long cbl;
    int k;
    if (c != C_MIN || q == Q_MIN) {
      cbl = cb - 2; // the neighbours are equally far
      k = flog10pow2(q);
    } else {
      cbl = cb - 1; // a power of two: the neighbour below is half as far
      k = flog10ThreeQuartersPow2(q);
    }
    int h = q + flog2pow10(-k) + 2;
    long g1 = G[(k - K_MIN) << 1];
    long g0 = G[(k - K_MIN) << 1 | 1];
    long vb = rop(g1, g0, cb << h);
    long vbl = rop(g1, g0, cbl << h);
    long vbr = rop(g1, g0, cbr << h);
    long s = vb >> 2;
    if (s >= 10) {
      // One digit fewer: the multiples of 10^(k+1) around the value, at most one of them in range.
      long sp10 = 10 * Math.multiplyHigh(s, TENTH);
      long tp10 = sp10 + 10;
      boolean upin = vbl + out <= sp10 << 2;
      boolean wpin = (tp10 << 2) + out <= vbr;
      if (upin != wpin) {
        return emit(upin ? sp10 : tp10, k, into);
      }
    }
    long t = s + 1;
    boolean uin = vbl + out <= s << 2;
    boolean win = (t << 2) + out <= vbr;
    if (uin != win) {
      return emit(uin ? s : t, k, into);
    }
    long cmp = vb - ((s + t) << 1); // both round to the value: the closer, the even on a tie
    return emit(cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t, k, into);
  }

  /** Section 9.9 and figure 8: {@code cp × g × 2^-127}, rounded to odd. */
  private static long rop(long g1, long g0, long cp) {
    long x1 = Math.multiplyHigh(g0, cp);
    long y0 = g1 * cp;
    long y1 = Math.multiplyHigh(g1, cp);
    long z = (y0 >>> 1) + x1;
    long vbp = y1 + (z >>> 63);
    return vbp | ((z & MASK_63) + MASK_63) >>> 63;
  }

  /** Writes f × 10^e's digits without trailing zeros and returns {@code n << 5 | k}. */
  private static int emit(long f, int e, byte[] into) {
    while (f % 10 == 0) {
      f /= 10;
      e++;
    }
    int k = 1;
    for (long bound = 10; k < 19 && f >= bound; bound *= 10) {
      k++;
    }
    for (int i = k - 1; i >= 0; i--) {
      into[i] = (byte) ('0' + f % 10);
      f /= 10;
    }
    return (e + k) << 5 | k;
  }

  /** {@code floor(log10(2^e))} for |e| up to 5,456 (section 6.1 of the paper). */
  static int flog10pow2(int e) {
    return (int) (e * 661_971_961_083L >> 41);
  }

  /** {@code floor(log10(3/4 × 2^e))} for |e| up to 5,456. */
  static int flog10ThreeQuartersPow2(int e) {
    return (int) ((e * 661_971_961_083L - 274_743_187_321L) >> 41);
  }

  /** {@code floor(log2(10^e))} for |e| up to 1,233. */
  static int flog2pow10(int e) {
    return (int) (e * 913_124_641_741L >> 38);
  }

  /** For k from K_MIN to K_MAX, the high 63 and the low 63 bits of g(k), in pairs. */
  private static long[] powersOfTen() {
    long[] g = new long[(K_MAX - K_MIN + 1) * 2];
    for (int k = K_MIN; k <= K_MAX; k++) {
      BigInteger gk;
      if (k <= 0) {
        BigInteger pow = BigInteger.TEN.pow(-k);
        int r = pow.bitLength() - 126;
        gk = r >= 0 ? pow.shiftRight(r) : pow.shiftLeft(-r);
      } else {
        BigInteger pow = BigInteger.TEN.pow(k);
        gk = BigInteger.ONE.shiftLeft(125 + pow.bitLength()).divide(pow);
      }
      gk = gk.add(BigInteger.ONE);
      g[(k - K_MIN) << 1] = gk.shiftRight(63).longValueExact();
      g[(k - K_MIN) << 1 | 1] = gk.longValue() & MASK_63;
    }
    return g;
  }
}
