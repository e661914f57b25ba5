package dev.onceonly.internal.jcs;

import dev.onceonly.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

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
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final MessageDigest SHA256_PROTOTYPE = newSha256();
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(Fingerprints::copyOfPrototype);

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
    return fromDigest(sha.digest());
  }

  /** Returns the {@code jcs-sha256} fingerprint of a SHA-256 digest. */
  public static Fingerprint fromDigest(byte[] sha256) {
    byte[] hex = new byte[sha256.length * 2];
    for (int i = 0; i < sha256.length; i++) {
      hex[2 * i] = HEX_DIGITS[(sha256[i] >> 4) & 0xF];
      hex[2 * i + 1] = HEX_DIGITS[sha256[i] & 0xF];
    }
    return new Fingerprint(Fingerprint.JCS_SHA256, new String(hex, StandardCharsets.US_ASCII));
  }

  /**
   * Returns this thread's SHA-256 digest, reused ({@code digest()} resets it): looking one up per
   * call costs about as much as hashing a small intent. A new thread starts from a copy of a
   * prototype, which is cheaper than a lookup.
   */
  public static MessageDigest sha256() {
    return SHA256.get();
  }

  private static MessageDigest copyOfPrototype() {
    try {
      return (MessageDigest) SHA256_PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
