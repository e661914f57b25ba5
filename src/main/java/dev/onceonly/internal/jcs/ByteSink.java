package dev.onceonly.internal.jcs;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/** A growable byte buffer that writes JSON strings as RFC 8785 wants them. Not thread-safe. */
final class ByteSink {
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /**
   * The ASCII characters RFC 8785 escapes ({@code "}, {@code \\} and C0 controls): one table load
   * in the loop of {@link #writeString} instead of four comparisons.
   */
  private static final boolean[] ESCAPED = new boolean[0x80];

  static {
    for (int c = 0; c < 0x20; c++) {
      ESCAPED[c] = true;
    }
    ESCAPED['"'] = true;
    ESCAPED['\\'] = true;
  }

  private byte[] bytes;
  private int size;

  /** The digits of the number being written, made on first use; see {@link #digitScratch}. */
  private byte[] digits;

  ByteSink(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  int size() {
    return size;
  }

  void truncate(int newSize) {
    size = newSize;
  }

  byte[] copyRange(int from, int to) {
    return Arrays.copyOfRange(bytes, from, to);
  }

  byte[] toByteArray() {
    return Arrays.copyOf(bytes, size);
  }

  /** Returns the digest of the bytes written so far. */
  byte[] digest(MessageDigest digest) {
    digest.update(bytes, 0, size);
    return digest.digest();
  }

  void write(byte b) {
    ensure(1);
    bytes[size++] = b;
  }

  void write(byte[] source, int from, int length) {
    ensure(length);
    System.arraycopy(source, from, bytes, size, length);
    size += length;
  }

  void writeAscii(String ascii) {
    int n = ascii.length();
    ensure(n);
    for (int i = 0; i < n; i++) {
      bytes[size++] = (byte) ascii.charAt(i);
    }
  }

  /**
   * Writes a JSON string per RFC 8785 section 3.2.2.2: only {@code "}, {@code \\} and C0 controls
   * are escaped, with the short forms where JSON has them and a six-character escape with lowercase
   * hex digits otherwise. Checks surrogates as it goes (RFC 7493 section 2.1).
   *
   * <p>Most strings are mostly ASCII that needs no escape, so a tight loop copies the leading run
   * of those, one byte each, as Jackson's own writer does; the general loop takes over at the first
   * other character.
   *
   * @return -1, or the index of the first unpaired surrogate, in which case nothing is written
   */
  int writeString(String s) {
    int n = s.length();
    int start = size;
    ensure(n * 3 + 2);
    byte[] b = bytes;
    int p = size;
    b[p++] = '"';
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c >= 0x80 || ESCAPED[c]) {
        break;
      }
      b[p++] = (byte) c;
      i++;
    }
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        if (!ESCAPED[c]) {
          b[p++] = (byte) c;
        } else {
          size = p;
          ensure((n - i) * 3 + 8); // an escape takes 6 bytes where 3 were reserved
          escape(c);
          b = bytes;
          p = size;
        }
      } else if (c < 0x800) {
        b[p++] = (byte) (0xC0 | (c >> 6));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (!Character.isSurrogate(c)) {
        b[p++] = (byte) (0xE0 | (c >> 12));
        b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        b[p++] = (byte) (0xF0 | (cp >> 18));
        b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (cp & 0x3F));
      } else {
        size = start;
        return i;
      }
    }
    b[p++] = '"';
    size = p;
    return -1;
  }

  /** Writes an int in decimal, which is its ECMAScript form (RFC 8785 section 3.2.2.3). */
  void writeInt(int value) {
    ensure(11);
    size = NumberOutput.outputInt(value, bytes, size);
  }

  /**
   * Writes a long in decimal: the ECMAScript form of a number whose magnitude is below 2^53 (above,
   * the double nearest the long must be printed instead; see {@link EcmaNumbers}).
   */
  void writeLong(long value) {
    ensure(20);
    size = NumberOutput.outputLong(value, bytes, size);
  }

  /** Writes a non-negative value below 10^digits as exactly {@code digits} decimal digits. */
  void writeFraction(long value, int digits) {
    ensure(digits);
    for (int p = size + digits - 1; p >= size; p--) {
      bytes[p] = (byte) ('0' + value % 10);
      value /= 10;
    }
    size += digits;
  }

  /** Writes {@code count} ASCII zeros. */
  void writeZeros(int count) {
    ensure(count);
    for (int i = 0; i < count; i++) { // at most 20, too few for Arrays.fill to pay off
      bytes[size++] = '0';
    }
  }

  /**
   * Returns a reused array for the significant digits of one number, which {@link EcmaNumbers}
   * collects before writing them here: large enough for the 17 digits a double can need.
   */
  byte[] digitScratch() {
    if (digits == null) {
      digits = new byte[32];
    }
    return digits;
  }

  /** Returns the bytes written, which must be ASCII, as a String. */
  String toAsciiString() {
    return new String(bytes, 0, size, StandardCharsets.US_ASCII);
  }

  private void escape(char c) {
    bytes[size++] = '\\';
    switch (c) {
      case '"' -> bytes[size++] = '"';
      case '\\' -> bytes[size++] = '\\';
      case '\b' -> bytes[size++] = 'b';
      case '\f' -> bytes[size++] = 'f';
      case '\n' -> bytes[size++] = 'n';
      case '\r' -> bytes[size++] = 'r';
      case '\t' -> bytes[size++] = 't';
      default -> {
        bytes[size++] = 'u';
        bytes[size++] = '0';
        bytes[size++] = '0';
        bytes[size++] = HEX[c >> 4];
        bytes[size++] = HEX[c & 0xF];
      }
    }
  }

  private void ensure(int extra) {
    if (size + extra > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + extra));
    }
  }
}
