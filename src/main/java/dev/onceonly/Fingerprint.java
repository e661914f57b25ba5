package dev.onceonly;

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

  /** Validates the profile name and the lowercase hex digest. */
  public Fingerprint {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(hex, "hex");
    if (!validProfile(profile)) {
      throw new IllegalArgumentException(
          "profile must be 1 to 32 of a-z, 0-9 and '-', not starting with '-': " + profile);
    }
    if (!validHex(hex)) {
      throw new IllegalArgumentException(
          "hex must be 16 to 128 lowercase hexadecimal digits, an even number");
    }
  }

  // Checked by hand, not by regular expression: fingerprints are built and parsed on every step.
  private static boolean validProfile(String p) {
    int n = p.length();
    if (n == 0 || n > 32 || p.charAt(0) == '-') {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = p.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
        return false;
      }
    }
    return true;
  }

  private static boolean validHex(String h) {
    int n = h.length();
    if (n < 16 || n > 128 || n % 2 != 0) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = h.charAt(i);
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
    return profile + ":" + hex;
  }
}
