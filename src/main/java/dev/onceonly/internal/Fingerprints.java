package dev.onceonly.internal;

import dev.onceonly.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Computes {@code jcs-sha256} fingerprints from arguments that are already canonical.
 *
 * <p>The intent document is {@code {"arguments":A,"operation":N}}: RFC 8785 sorts "arguments"
 * before "operation", so the canonical document is these bytes in this order, and hashing them
 * piecewise equals hashing the whole.
 */
public final class Fingerprints {
  private static final byte[] PREFIX = "{\"arguments\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INFIX = ",\"operation\":".getBytes(StandardCharsets.US_ASCII);
  private static final HexFormat HEX = HexFormat.of();

  private Fingerprints() {}

  /**
   * Returns the fingerprint of an operation with canonical arguments.
   *
   * @param operation the operation's name, free of unpaired surrogates
   * @param canonicalArguments the RFC 8785 form of the arguments
   * @return the {@code jcs-sha256} fingerprint
   */
  public static Fingerprint of(String operation, byte[] canonicalArguments) {
    if (Jcs.loneSurrogate(operation) >= 0) {
      throw new IllegalArgumentException("operation holds an unpaired surrogate");
    }
    ByteSink name = new ByteSink(operation.length() + 2);
    name.writeString(operation);
    MessageDigest sha = sha256();
    sha.update(PREFIX);
    sha.update(canonicalArguments);
    sha.update(INFIX);
    sha.update(name.toByteArray());
    sha.update((byte) '}');
    return new Fingerprint(Fingerprint.JCS_SHA256, HEX.formatHex(sha.digest()));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
