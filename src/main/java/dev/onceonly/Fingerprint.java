package dev.onceonly;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

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

  private static final Pattern PROFILE = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
  private static final Pattern HEX = Pattern.compile("[0-9a-f]{16,128}");

  /** Validates the profile name and the lowercase hex digest. */
  public Fingerprint {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(hex, "hex");
    if (!PROFILE.matcher(profile).matches()) {
      throw new IllegalArgumentException("profile must match " + PROFILE + ": " + profile);
    }
    if (!HEX.matcher(hex).matches() || hex.length() % 2 != 0) {
      throw new IllegalArgumentException("hex must be lowercase hexadecimal of even length");
    }
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
