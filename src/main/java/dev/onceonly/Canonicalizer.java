package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.internal.jcs.Fingerprints;
import dev.onceonly.internal.jcs.Jcs;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Turns JSON into its RFC 8785 (JSON Canonicalization Scheme) form, and intents into {@link
 * Fingerprint}s.
 *
 * <p>Two JSON texts that mean the same I-JSON value (same members in any order, any whitespace, any
 * escaping, any spelling of the same number) have byte-identical canonical forms. Input that is not
 * I-JSON (RFC 7493) is refused with a {@link CanonicalizationException} naming the problem and its
 * position: NaN and infinities, numbers beyond the double range, duplicate member names, unpaired
 * surrogates, malformed UTF-8, trailing data, empty input, and anything beyond the configured
 * limits. No Unicode normalization is applied.
 *
 * <p>Instances are immutable and thread-safe. {@link #defaults()} allows 1 MiB of input, nesting 64
 * deep and strings of 65,536 UTF-16 code units.
 *
 * <pre>{@code
 * Canonicalizer jcs = Canonicalizer.defaults();
 * jcs.canonicalString("{ \"b\": 1.0, \"a\": [1e21] }");   // {"a":[1e+21],"b":1}
 * jcs.fingerprint("make_report", "{\"muestras\":[10,20,30]}"); // jcs-sha256:…
 * }</pre>
 */
public final class Canonicalizer {
  /** Default maximum input size: 1 MiB. */
  public static final int DEFAULT_MAX_INPUT_BYTES = 1 << 20;

  /** Default maximum nesting depth of arrays and objects. */
  public static final int DEFAULT_MAX_DEPTH = 64;

  /**
   * The deepest nesting {@link Builder#maxDepth} accepts, whatever is configured: canonicalization
   * recurses once per level, and this keeps it well inside a thread's default stack.
   */
  public static final int MAX_DEPTH = 1000;

  /** Default maximum length of a string or member name, in UTF-16 code units. */
  public static final int DEFAULT_MAX_STRING_LENGTH = 65_536;

  private static final Canonicalizer DEFAULTS = builder().build();

  private final int maxInputBytes;
  private final int maxDepth;
  private final int maxStringLength;
  private final Jcs jcs;

  private Canonicalizer(Builder builder) {
    this.maxInputBytes = builder.maxInputBytes;
    this.maxDepth = builder.maxDepth;
    this.maxStringLength = builder.maxStringLength;
    this.jcs = new Jcs(maxInputBytes, maxDepth, maxStringLength);
  }

  /** {@return a canonicalizer with the default limits} */
  public static Canonicalizer defaults() {
    return DEFAULTS;
  }

  /** {@return a builder starting from the default limits} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the canonical UTF-8 bytes of JSON text.
   *
   * @param json JSON text
   * @return the RFC 8785 canonical form
   * @throws CanonicalizationException if the text is not I-JSON or exceeds a limit
   */
  public byte[] canonicalize(String json) {
    return jcs.canonicalize(Objects.requireNonNull(json, "json"));
  }

  /**
   * Returns the canonical UTF-8 bytes of JSON text given as UTF-8 bytes.
   *
   * @param utf8 JSON text encoded as UTF-8 (no byte order mark)
   * @return the RFC 8785 canonical form
   * @throws CanonicalizationException if the bytes are not UTF-8, not I-JSON, or exceed a limit
   */
  public byte[] canonicalize(byte[] utf8) {
    return jcs.canonicalize(Objects.requireNonNull(utf8, "utf8"));
  }

  /**
   * Returns the canonical UTF-8 bytes of a Jackson tree.
   *
   * @param tree a tree of JSON nodes; binary and POJO nodes are refused
   * @return the RFC 8785 canonical form
   * @throws CanonicalizationException if the tree holds a non-finite number, an unpaired surrogate,
   *     a node with no JSON form, or exceeds a limit (positions are JSON Pointers)
   */
  public byte[] canonicalize(JsonNode tree) {
    return jcs.canonicalize(Objects.requireNonNull(tree, "tree"));
  }

  /**
   * Returns the canonical form of JSON text as a string.
   *
   * @param json JSON text
   * @return the canonical form, decoded from UTF-8
   * @throws CanonicalizationException as {@link #canonicalize(String)}
   */
  public String canonicalString(String json) {
    return new String(canonicalize(json), StandardCharsets.UTF_8);
  }

  /**
   * Returns the canonical form of a Jackson tree as a string.
   *
   * @param tree a tree of JSON nodes
   * @return the canonical form, decoded from UTF-8
   * @throws CanonicalizationException as {@link #canonicalize(JsonNode)}
   */
  public String canonicalString(JsonNode tree) {
    return new String(canonicalize(tree), StandardCharsets.UTF_8);
  }

  /**
   * Returns the fingerprint of an intent: SHA-256 over the canonical form of {@code {"operation":
   * operation, "arguments": arguments}}, with profile {@link Fingerprint#JCS_SHA256}.
   *
   * @param operation the operation's name, for example {@code "create_ticket"}
   * @param arguments the operation's arguments
   * @return the fingerprint
   * @throws CanonicalizationException if the operation name or the arguments cannot be
   *     canonicalized (an unpaired surrogate, a limit exceeded)
   */
  public Fingerprint fingerprint(String operation, JsonNode arguments) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(arguments, "arguments");
    return Fingerprints.fromDigest(jcs.digestIntent(operation, arguments, Fingerprints.sha256()));
  }

  /**
   * Returns the fingerprint of an intent whose arguments are JSON text.
   *
   * @param operation the operation's name
   * @param argumentsJson the arguments as JSON text
   * @return the fingerprint, equal to the one of the parsed arguments
   * @throws CanonicalizationException if the arguments are not I-JSON or exceed a limit, or the
   *     operation name cannot be canonicalized
   */
  public Fingerprint fingerprint(String operation, String argumentsJson) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(argumentsJson, "argumentsJson");
    return Fingerprints.fromDigest(
        jcs.digestIntent(operation, argumentsJson, Fingerprints.sha256()));
  }

  /** {@return the maximum input size in bytes} */
  public int maxInputBytes() {
    return maxInputBytes;
  }

  /** {@return the maximum nesting depth} */
  public int maxDepth() {
    return maxDepth;
  }

  /** {@return the maximum string length in UTF-16 code units} */
  public int maxStringLength() {
    return maxStringLength;
  }

  /** Builds a {@link Canonicalizer}. Not thread-safe; the built object is. */
  public static final class Builder {
    private int maxInputBytes = DEFAULT_MAX_INPUT_BYTES;
    private int maxDepth = DEFAULT_MAX_DEPTH;
    private int maxStringLength = DEFAULT_MAX_STRING_LENGTH;

    private Builder() {}

    /**
     * Sets the largest accepted input (and canonical output), in bytes. Default 1 MiB.
     *
     * @param bytes the limit
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes <= 0}
     */
    public Builder maxInputBytes(int bytes) {
      this.maxInputBytes = positive(bytes, "maxInputBytes");
      return this;
    }

    /**
     * Sets the deepest accepted nesting of arrays and objects. Default 64.
     *
     * @param depth the limit
     * @return this builder
     * @throws IllegalArgumentException if {@code depth <= 0} or {@code depth >} {@value #MAX_DEPTH}
     */
    public Builder maxDepth(int depth) {
      if (positive(depth, "maxDepth") > MAX_DEPTH) {
        // Canonicalization recurses once per level: a bound keeps it off the thread's stack limit.
        throw new IllegalArgumentException("maxDepth must be <= " + MAX_DEPTH + ", got " + depth);
      }
      this.maxDepth = depth;
      return this;
    }

    /**
     * Sets the longest accepted string or member name, in UTF-16 code units. Default 65,536.
     *
     * @param length the limit
     * @return this builder
     * @throws IllegalArgumentException if {@code length <= 0}
     */
    public Builder maxStringLength(int length) {
      this.maxStringLength = positive(length, "maxStringLength");
      return this;
    }

    /** {@return a new canonicalizer with these limits} */
    public Canonicalizer build() {
      return new Canonicalizer(this);
    }

    private static int positive(int value, String name) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be > 0");
      }
      return value;
    }
  }
}
