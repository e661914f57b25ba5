package dev.onceonly.internal.jcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.DoubleConsumer;
import org.junit.jupiter.api.Test;

/**
 * {@link EcmaNumbers} against {@link EcmaReference} over generated doubles: random bit patterns and
 * the classes where shortest-digit writers go wrong (subnormals, powers of two, the neighbours of
 * 2^53 and 2^63, the 1e-7, 1e-6 and 1e21 layout boundaries, integers, decimals of 15 to 17
 * significant digits, short decimals).
 *
 * <p>The reference is built from jackson-core's Schubfach writer and, when the tests run on JDK 19
 * or later, also from the JDK's {@code Double.toString}, whose contract is then the shortest
 * digits: {@code mvn -B test -Dtest=EcmaNumbersProperties
 * -Djvm=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}. Each test draws {@code
 * -Donceonly.doubles.count=N} doubles (20,000 unless given; the tens of millions that were run once
 * are in docs/performance-canonicalizer.md) from {@code -Donceonly.doubles.seed=S}.
 */
class EcmaNumbersProperties {
  private static final int COUNT = Integer.getInteger("onceonly.doubles.count", 20_000);
  private static final long SEED = Long.getLong("onceonly.doubles.seed", 0x5C4B_FAC4L);
  private static final boolean JDK_IS_SHORTEST = Runtime.version().feature() >= 19;
  private static final double TWO_POW_53 = 0x1p53;

  @Test
  void randomBitPatterns() {
    SplittableRandom random = new SplittableRandom(SEED);
    forEach(COUNT, () -> Double.longBitsToDouble(random.nextLong()));
  }

  @Test
  void subnormals() {
    SplittableRandom random = new SplittableRandom(SEED + 1);
    for (long t = 1; t <= 2_000; t++) {
      check(Double.longBitsToDouble(t));
      check(Double.longBitsToDouble((1L << 52) - t));
    }
    forEach(COUNT, () -> Double.longBitsToDouble(random.nextLong(1, 1L << 52)));
  }

  @Test
  void powersOfTwoAndTheirNeighbours() {
    for (int e = -1074; e <= 1023; e++) {
      double power = Math.scalb(1.0, e);
      double below = power;
      double above = power;
      for (int step = 0; step < 8; step++) {
        check(below);
        check(above);
        below = Math.nextDown(below);
        above = Math.nextUp(above);
      }
    }
    for (double anchor : new double[] {TWO_POW_53, 0x1p63, 0x1p64}) {
      walk(anchor, 5_000);
    }
  }

  @Test
  void layoutBoundariesAndPowersOfTen() {
    for (int p = -324; p <= 308; p++) {
      walk(Double.parseDouble("1e" + p), 10);
      walk(Double.parseDouble("5e" + p), 4);
    }
    for (double boundary : new double[] {1e21, 1e-6, 1e-7, 1e-3, 1e15, 1e17}) {
      walk(boundary, 5_000);
    }
  }

  @Test
  void integers() {
    SplittableRandom random = new SplittableRandom(SEED + 2);
    forEach(
        COUNT,
        () ->
            switch (random.nextInt(3)) {
              case 0 -> (double) random.nextLong();
              case 1 -> (double) (random.nextLong() >> random.nextInt(64));
              default -> (double) random.nextLong((long) TWO_POW_53 * 4);
            });
  }

  @Test
  void decimalsOfFifteenToSeventeenDigits() {
    SplittableRandom random = new SplittableRandom(SEED + 3);
    forEach(
        COUNT,
        () -> {
          int digits = 15 + random.nextInt(3);
          long low = (long) Math.pow(10, digits - 1);
          long mantissa = random.nextLong(low, low * 10);
          int exponent =
              random.nextInt(10) == 0 ? random.nextInt(-340, 300) : random.nextInt(-30, 30);
          return Double.parseDouble(mantissa + "e" + exponent);
        });
  }

  @Test
  void shortDecimals() {
    SplittableRandom random = new SplittableRandom(SEED + 4);
    forEach(
        COUNT,
        () -> {
          long mantissa = random.nextLong(1, 10_000_000_000L);
          return Double.parseDouble(mantissa + "e-" + random.nextInt(1, 8));
        });
  }

  private static void forEach(int count, java.util.function.DoubleSupplier values) {
    for (int i = 0; i < count; i++) {
      check(values.getAsDouble());
    }
  }

  /** Checks {@code steps} doubles on each side of the anchor, and the anchor. */
  private static void walk(double anchor, int steps) {
    DoubleConsumer each = EcmaNumbersProperties::check;
    double below = anchor;
    double above = anchor;
    for (int i = 0; i < steps; i++) {
      each.accept(below);
      each.accept(above);
      below = Math.nextDown(below);
      above = Math.nextUp(above);
    }
  }

  private static void check(double value) {
    if (!Double.isFinite(value)) {
      return;
    }
    String actual = EcmaNumbers.toString(value);
    String bits = String.format(Locale.ROOT, "%016x", Double.doubleToRawLongBits(value));
    assertThat(actual)
        .as("bits %s, jackson-core's digits %s", bits, NumberOutput.toString(value, true))
        .isEqualTo(EcmaReference.of(value, NumberOutput.toString(value, true)));
    if (JDK_IS_SHORTEST) {
      assertThat(actual)
          .as("bits %s, the JDK's digits %s", bits, Double.toString(value))
          .isEqualTo(EcmaReference.of(value, Double.toString(value)));
    }
  }
}
