package dev.onceonly;

import java.util.Locale;
import java.util.Objects;

/**
 * The digest of an intent's canonical content, tagged with the profile that produced it.
 *
 * <p>Rendered as {@code profile:hex}, for example {@code jcs-sha256:9f2c…}. The profile is stored
 * next to the digest so that a later algorithm can coexist with this one without reporting false
 * conflicts. Instances are immutable and compare by value.
 *
 * @param profile the algorithm that produced the digest, for example {@link #JCS_SHA256}
 * @param hex the digest as lowercase hexadecimal
 */
public record Fingerprint(String profile, String hex) {
  /** SHA-256 over the RFC 8785 canonical form of {@code {"operation":…,"arguments":…}}. */
  public static final String JCS_SHA256 = "jcs-sha256";

  private static final String PROFILE = "[a-z0-9][a-z0-9-]{0,31}";

  /**
   * Validates the profile name and the lowercase hex digest.
   *
   * @param profile the algorithm that produced the digest, for example {@link #JCS_SHA256}
   * @param hex the digest as lowercase hexadecimal
   */
  public Fingerprint {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(hex, "hex");
    if (!isProfile(profile)) {
      throw new IllegalArgumentException("profile must match " + PROFILE + ": " + profile);
    }
    if (!isHex(hex)) {
      throw new IllegalArgumentException("hex must be lowercase hexadecimal of even length");
    }
  }

  // Hand-written rather than regular expressions: a fingerprint is built on every intent.
  private static boolean isProfile(String s) {
    if (s.isEmpty() || s.length() > 32 || s.charAt(0) == '-') {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /** 16 to 128 lowercase hex digits, an even number of them. */
  private static boolean isHex(String s) {
    if (s.length() < 16 || s.length() > 128 || s.length() % 2 != 0) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Parses the {@code profile:hex} form produced by {@link #toString()}.
   *
   * @param text the rendered fingerprint
   * @return the fingerprint
   * @throws IllegalArgumentException if the text is not of that form
   */
  public static Fingerprint parse(String text) {
    Objects.requireNonNull(text, "text");
    int colon = text.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("fingerprint must be profile:hex: " + text);
    }
    return new Fingerprint(text.substring(0, colon), text.substring(colon + 1));
  }

  /** Returns {@code profile:hex}. */
  @Override
  public String toString() {
    return profile + ":" + hex.toLowerCase(Locale.ROOT);
  }
}
