package dev.onceonly.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded hostile stream entries: random bytes, broken envelopes, invalid UTF-8, duplicate and
 * missing fields, huge and deep arguments, bad scopes and keys, and some well-formed reports.
 */
final class HostileEntries {
  private static final String[] FIELDS = {"scope", "key", "operation", "arguments"};
  private static final String[] JSON_BITS = {
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"samples\"",
    "\"a\"",
    "1",
    "-0",
    "1e400",
    "NaN",
    "true",
    "null",
    "\"\\ud800\"",
    "\"\u00f1\"",
    " ",
    "\"x\":",
    "[1,2,3]",
    "{\"samples\":[1]}"
  };

  private final SplittableRandom random;

  HostileEntries(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** Returns one entry's field names and values, alternating (always paired, as XADD needs). */
  List<byte[]> next() {
    return switch (random.nextInt(10)) {
      case 0 -> randomBytes();
      case 1 -> envelope("workshop", "k-" + random.nextInt(1000), "make_report", jsonish());
      case 2 -> envelope("workshop", "ok-" + random.nextInt(1_000_000), "make_report", samples());
      case 3 -> envelope("workshop", "big", "make_report", "\"" + "x".repeat(1_100_000) + "\"");
      case 4 -> invalidUtf8();
      case 5 -> withDuplicate();
      case 6 -> envelope("workshop", "k", "make_report", samples()).subList(0, 6);
      case 7 -> envelope(text(300), text(40), "make_report", samples());
      case 8 -> envelope("workshop", "deep", "make_report", "[".repeat(200) + "]".repeat(200));
      default -> envelope("workshop", "schema", "make_report", "{\"samples\":[],\"other\":1}");
    };
  }

  private List<byte[]> randomBytes() {
    List<byte[]> out = new ArrayList<>();
    int pairs = 1 + random.nextInt(4);
    for (int i = 0; i < 2 * pairs; i++) {
      byte[] b = new byte[random.nextInt(60)];
      random.nextBytes(b);
      out.add(b);
    }
    return out;
  }

  private List<byte[]> invalidUtf8() {
    List<byte[]> out = envelope("workshop", "utf", "make_report", samples());
    out.set(2 * random.nextInt(4) + random.nextInt(2), new byte[] {(byte) 0xC3, (byte) 0x28});
    return out;
  }

  private List<byte[]> withDuplicate() {
    List<byte[]> out = envelope("workshop", "dup", "make_report", samples());
    out.add(utf8(FIELDS[random.nextInt(4)]));
    out.add(utf8("otro"));
    return out;
  }

  private static List<byte[]> envelope(String scope, String key, String operation, String args) {
    List<byte[]> out = new ArrayList<>();
    for (String s : new String[] {"scope", scope, "key", key, "operation", operation}) {
      out.add(utf8(s));
    }
    out.add(utf8("arguments"));
    out.add(utf8(args));
    return out;
  }

  private String samples() {
    StringBuilder sb = new StringBuilder("{\"samples\":[");
    int n = 1 + random.nextInt(5);
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ",").append(random.nextInt(10_001));
    }
    return sb.append("]}").toString();
  }

  private String jsonish() {
    StringBuilder sb = new StringBuilder();
    int n = random.nextInt(12);
    for (int i = 0; i < n; i++) {
      sb.append(JSON_BITS[random.nextInt(JSON_BITS.length)]);
    }
    return sb.toString();
  }

  private String text(int maxChars) {
    StringBuilder sb = new StringBuilder();
    int n = random.nextInt(maxChars + 1);
    for (int i = 0; i < n; i++) {
      int cp = random.nextInt(4) == 0 ? random.nextInt(0x20, 0x3000) : random.nextInt('a', 'z' + 1);
      if (!Character.isSurrogate((char) cp)) {
        sb.appendCodePoint(cp);
      }
    }
    return sb.toString();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
