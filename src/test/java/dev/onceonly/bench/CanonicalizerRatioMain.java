package dev.onceonly.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.Canonicalizer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The canonicalizer against Jackson on {@link BenchDocuments}' 2 KB and 64 KB documents,
 * interleaved in one JVM so that the load of a shared machine falls on both alike: {@code rounds}
 * times A B B A, each phase {@code millis} long, where A is Jackson and B the canonicalizer, for
 * text ({@code readTree} + {@code writeValueAsBytes} against {@code canonicalize(String)}) and for
 * a tree ({@code writeValueAsBytes} against {@code canonicalize(JsonNode)}). Prints each round's
 * ratio B / A, their median, and the load average before and after. Rates are calls per second of
 * this thread's CPU time, not of the clock: on a machine shared with other builds the thread is
 * descheduled for long stretches, which the clock counts and the CPU time does not. JMH's {@link
 * CanonicalizerBenchmark} runs one benchmark after another, which on a busy machine compares
 * different loads.
 *
 * <pre>
 * mvn -B -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.bench.CanonicalizerRatioMain \
 *     -Dbench.args="rounds=8 millis=500"
 * </pre>
 */
public final class CanonicalizerRatioMain {
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
  private static volatile Object sink;

  private CanonicalizerRatioMain() {}

  public static void main(String[] args) throws Exception {
    int rounds = 8;
    int millis = 500;
    for (String a : args) {
      if (a.startsWith("rounds=")) {
        rounds = Integer.parseInt(a.substring(7));
      } else if (a.startsWith("millis=")) {
        millis = Integer.parseInt(a.substring(7));
      }
    }
    ObjectMapper mapper = new ObjectMapper();
    Canonicalizer canonicalizer = Canonicalizer.defaults();
    System.out.println("load average before: " + load());
    for (String size : new String[] {"2KB", "64KB"}) {
      JsonNode tree = BenchDocuments.of(size);
      String text = mapper.writeValueAsString(tree);
      compare(
          size + " text",
          () -> mapper.writeValueAsBytes(mapper.readTree(text)),
          () -> canonicalizer.canonicalize(text),
          rounds,
          millis);
      compare(
          size + " tree",
          () -> mapper.writeValueAsBytes(tree),
          () -> canonicalizer.canonicalize(tree),
          rounds,
          millis);
    }
    System.out.println("load average after: " + load());
  }

  private static void compare(
      String name, Callable<byte[]> a, Callable<byte[]> b, int rounds, int millis)
      throws Exception {
    for (int warm = 0; warm < 3; warm++) { // the JIT, not counted
      rate(a, millis);
      rate(b, millis);
    }
    double[] ratios = new double[rounds];
    double sumA = 0;
    double sumB = 0;
    for (int r = 0; r < rounds; r++) {
      double a1 = rate(a, millis);
      double b1 = rate(b, millis);
      double b2 = rate(b, millis);
      double a2 = rate(a, millis);
      ratios[r] = (b1 + b2) / (a1 + a2);
      sumA += a1 + a2;
      sumB += b1 + b2;
    }
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    double median = (sorted[(rounds - 1) / 2] + sorted[rounds / 2]) / 2;
    System.out.printf(
        Locale.ROOT,
        "%s: jackson %.0f ops/s, onceonly %.0f ops/s; ratio per round %s; median %.2fx%n",
        name,
        sumA / (2 * rounds),
        sumB / (2 * rounds),
        Arrays.toString(Arrays.stream(ratios).map(x -> Math.round(x * 100) / 100.0).toArray()),
        median);
  }

  /** Runs the call for about {@code millis} of CPU time; returns calls per CPU second. */
  private static double rate(Callable<byte[]> call, int millis) throws Exception {
    long start = CPU.getCurrentThreadCpuTime();
    long until = start + millis * 1_000_000L;
    long n = 0;
    long now;
    do {
      for (int i = 0; i < 16; i++) { // reading the CPU clock costs about a microsecond
        sink = call.call();
      }
      n += 16;
      now = CPU.getCurrentThreadCpuTime();
    } while (now - until < 0);
    return n / ((now - start) / 1e9);
  }

  private static String load() {
    return String.format(
        Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }
}
