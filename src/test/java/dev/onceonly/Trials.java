package dev.onceonly;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Runs a property over many seeded random trials and names the seed of the first one that fails.
 *
 * <p>Every trial gets its own generator, seeded from the base seed, the property's name and the
 * trial's number, so one trial can be run again alone. The base seed is fixed unless {@code
 * -Donceonly.properties.seed=N} is given; {@code -Donceonly.properties.try=T} runs only trial T,
 * and {@code -Donceonly.properties.tries=N} runs N trials of every property instead of its own
 * count.
 */
final class Trials {
  private static final long DEFAULT_SEED = 0x0_1CE0_0B1E_5EEDL;

  private static final String SEED_PROPERTY = "onceonly.properties.seed";
  private static final String TRY_PROPERTY = "onceonly.properties.try";
  private static final String TRIES_PROPERTY = "onceonly.properties.tries";
  private static final int MAX_SHOWN = 2_000;

  private Trials() {}

  /** One property: draws its inputs from the trial and asserts. */
  @FunctionalInterface
  interface Check {
    void run(Trial trial) throws Exception;
  }

  /** One trial's random source, and the inputs it drew, shown if it fails. */
  static final class Trial {
    private final SplittableRandom random;
    private final RandomJson json;
    private final List<String> inputs = new ArrayList<>();

    private Trial(long seed) {
      this.random = new SplittableRandom(seed);
      this.json = new RandomJson(random);
    }

    SplittableRandom random() {
      return random;
    }

    RandomJson json() {
      return json;
    }

    /** Records an input under a name, to be shown if the trial fails, and returns it. */
    <T> T input(String name, T value) {
      inputs.add(name + " = " + show(value));
      return value;
    }
  }

  /**
   * Runs {@code tries} trials of the calling property (the method that calls this one, whose name
   * is mixed into the seeds); throws an AssertionError naming the seed and trial of the first
   * failure, with the failure as its cause.
   */
  static void forAll(int tries, Check check) {
    StackWalker.StackFrame caller =
        StackWalker.getInstance().walk(frames -> frames.skip(1).findFirst()).orElseThrow();
    String property = caller.getMethodName();
    String className = caller.getClassName();
    String test = className.substring(className.lastIndexOf('.') + 1) + '#' + property;
    long base = Long.getLong(SEED_PROPERTY, DEFAULT_SEED);
    int count = Integer.getInteger(TRIES_PROPERTY, tries);
    Integer only = Integer.getInteger(TRY_PROPERTY);
    int first = only == null ? 0 : only;
    int end = only == null ? count : only + 1;
    for (int i = first; i < end; i++) {
      long seed = trialSeed(base, property, i);
      Trial trial = new Trial(seed);
      try {
        check.run(trial);
      } catch (Exception | AssertionError | StackOverflowError e) {
        throw new AssertionError(failure(test, base, i, seed, trial.inputs, e), e);
      }
    }
  }

  /** Distinct, well-mixed seeds for every property and trial (SplitMix64's finalizer). */
  private static long trialSeed(long base, String property, int trial) {
    long z = base + 0x9E37_79B9_7F4A_7C15L * (trial + 1L) + property.hashCode() * 0xBF58_476DL;
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return z ^ (z >>> 31);
  }

  private static String failure(
      String test, long base, int trial, long seed, List<String> inputs, Throwable e) {
    StringBuilder message =
        new StringBuilder()
            .append(
                String.format(
                    Locale.ROOT,
                    "%s failed at seed %d try %d (trial seed %d); rerun it alone with"
                        + " -Dtest=%s -D%s=%d -D%s=%d",
                    test,
                    base,
                    trial,
                    seed,
                    test,
                    SEED_PROPERTY,
                    base,
                    TRY_PROPERTY,
                    trial));
    for (String input : inputs) {
      message.append("\n  ").append(input);
    }
    return message.append("\n").append(e).toString();
  }

  /**
   * Strings as Java literals, byte arrays in hex, anything else by its toString; controls and
   * surrogates as Unicode escapes; long values cut short.
   */
  static String show(Object value) {
    String text;
    if (value instanceof byte[] bytes) {
      text = HexFormat.ofDelimiter(" ").formatHex(bytes);
    } else if (value instanceof String s) {
      text = '"' + escape(s.replace("\\", "\\\\").replace("\"", "\\\"")) + '"';
    } else {
      text = escape(String.valueOf(value));
    }
    return text.length() <= MAX_SHOWN
        ? text
        : text.substring(0, MAX_SHOWN) + "... (" + text.length() + " chars)";
  }

  private static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7F || Character.isSurrogate(c)) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
