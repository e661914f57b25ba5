package dev.onceonly.internal.jcs;

import java.security.MessageDigest;
import java.util.Arrays;

/** A growable byte buffer that writes JSON strings as RFC 8785 wants them. Not thread-safe. */
final class ByteSink {
  private static final byte[] HEX =
      "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private byte[] bytes;
  private int size;

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
   * @return -1, or the index of the first unpaired surrogate, in which case nothing is written
   */
  int writeString(String s) {
    int n = s.length();
    int start = size;
    ensure(n * 3 + 2);
    byte[] b = bytes;
    int p = size;
    b[p++] = '"';
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c != '"' && c != '\\') {
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
    if (value == Integer.MIN_VALUE) {
      writeAscii("-2147483648"); // its magnitude has no int
      return;
    }
    ensure(11);
    if (value < 0) {
      bytes[size++] = '-';
      value = -value;
    }
    int digits = digits(value);
    for (int p = size + digits - 1; p >= size; p--) {
      bytes[p] = (byte) ('0' + value % 10);
      value /= 10;
    }
    size += digits;
  }

  private static int digits(int nonNegative) {
    int digits = 1;
    for (int limit = 10; digits < 10 && nonNegative >= limit; limit *= 10) {
      digits++;
    }
    return digits;
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
