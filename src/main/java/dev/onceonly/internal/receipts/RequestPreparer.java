package dev.onceonly.internal.receipts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.ArgumentsValidator;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OperationRules;
import dev.onceonly.internal.jcs.Fingerprints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Validates requests and brings their arguments to canonical form, before any transaction opens.
 * Immutable and thread-safe.
 */
public final class RequestPreparer {
  /** Reads canonical arguments for validators; a reader with default features is thread-safe. */
  private static final ObjectMapper PLAIN = new ObjectMapper();

  /** What an operation's name must match entirely. */
  public static final Pattern OPERATION = Pattern.compile("[A-Za-z][A-Za-z0-9_.:-]{0,99}");

  private final Pattern scopePattern;
  private final Pattern keyPattern;
  private final Canonicalizer canonicalizer;
  private final ObjectMapper mapper;
  private final Map<String, ArgumentsValidator> validators;
  private final Map<String, OperationRules> rules;
  private final Map<String, Pattern> keyPatterns;

  /** The longest scope or key the database's key columns hold, in UTF-16 code units. */
  private final int maxKeyChars;

  /** A request that passed every check: its canonical arguments and fingerprint. */
  public record Prepared(
      IntentKey key,
      String operation,
      JsonNode arguments,
      String canonicalArguments,
      Fingerprint fingerprint) {}

  /**
   * Creates the validator.
   *
   * @param scopePattern what a scope must match entirely
   * @param keyPattern what a key must match entirely
   * @param canonicalizer canonicalizes arguments, enforcing the payload limits
   * @param mapper turns argument objects into trees
   * @param validators per-operation argument checks
   * @param rules per-operation rules
   */
  public RequestPreparer(
      Pattern scopePattern,
      Pattern keyPattern,
      Canonicalizer canonicalizer,
      ObjectMapper mapper,
      Map<String, ArgumentsValidator> validators,
      Map<String, OperationRules> rules) {
    this.scopePattern = scopePattern;
    this.keyPattern = keyPattern;
    this.canonicalizer = canonicalizer;
    this.mapper = mapper;
    this.validators = Map.copyOf(validators);
    this.rules = Map.copyOf(rules);
    Map<String, Pattern> patterns = new HashMap<>();
    this.rules.forEach(
        (operation, r) ->
            r.keyPattern().ifPresent(p -> patterns.put(operation, Pattern.compile(p))));
    this.keyPatterns = Map.copyOf(patterns);
    this.maxKeyChars = Integer.MAX_VALUE;
  }

  private RequestPreparer(RequestPreparer other, int maxKeyChars) {
    this.scopePattern = other.scopePattern;
    this.keyPattern = other.keyPattern;
    this.canonicalizer = other.canonicalizer;
    this.mapper = other.mapper;
    this.validators = other.validators;
    this.rules = other.rules;
    this.keyPatterns = other.keyPatterns;
    this.maxKeyChars = maxKeyChars;
  }

  /**
   * Returns this validator refusing also a scope or key longer than {@code maxKeyChars}, what the
   * database's key columns hold (MariaDB's are bounded to be indexed), whatever the patterns allow.
   */
  public RequestPreparer limitedTo(int maxKeyChars) {
    return maxKeyChars == this.maxKeyChars ? this : new RequestPreparer(this, maxKeyChars);
  }

  /** Returns whether a step of {@code operation} runs only for a registered intent. */
  public boolean requiresRegisteredIntent(String operation) {
    OperationRules r = rules.get(operation);
    return r != null && r.requiresRegisteredIntent();
  }

  /** Returns the canonicalizer that bounds payloads. */
  public Canonicalizer canonicalizer() {
    return canonicalizer;
  }

  /**
   * Validates a key given without its operation (a lookup): it must match the instance's key
   * pattern or the pattern of some operation, since any of them may have stored it.
   */
  public IntentKey checkKey(IntentKey key) {
    Objects.requireNonNull(key, "key");
    check("scope", key.scope(), scopePattern);
    checkLength(key);
    for (Pattern p : keyPatterns.values()) {
      if (key.key() != null && p.matcher(key.key()).matches()) {
        Identifiers.check("key", key.key());
        return key;
      }
    }
    check("key", key.key(), keyPattern);
    return key;
  }

  /** Validates a key against the pattern of {@code operation} (may be null), or the instance's. */
  private void checkKey(IntentKey key, String operation) {
    Objects.requireNonNull(key, "key");
    check("scope", key.scope(), scopePattern);
    checkLength(key);
    Pattern own = operation == null ? null : keyPatterns.get(operation);
    check("key", key.key(), own != null ? own : keyPattern);
  }

  private void checkLength(IntentKey key) {
    checkLength("scope", key.scope());
    checkLength("key", key.key());
  }

  private void checkLength(String field, String value) {
    if (value != null && value.length() > maxKeyChars) {
      throw new InvalidRequestException(
          field,
          "must be at most " + maxKeyChars + " characters on this database, got " + value.length());
    }
  }

  /** Validates a whole request and canonicalizes its arguments. */
  public Prepared prepare(IntentKey key, String operation, Object arguments) {
    checkKey(key, operation);
    Objects.requireNonNull(operation, "operation");
    check("operation", operation, OPERATION);
    JsonNode tree = toTree(arguments);
    byte[] canonical = canonicalizer.canonicalize(tree);
    ArgumentsValidator validator = validators.get(operation);
    if (validator != null) {
      validator.check(canonicalTree(canonical));
    }
    OperationRules r = rules.get(operation);
    if (r != null && r.validator().isPresent()) {
      r.validator().get().check(key, canonicalTree(canonical));
    }
    return new Prepared(
        key,
        operation,
        tree,
        new String(canonical, StandardCharsets.UTF_8),
        Fingerprints.of(operation, canonical));
  }

  /**
   * Returns the canonical arguments as a plain {@link ObjectMapper} reads them, for a validator:
   * the caller's tree may say {@code 10.0} where a message over any transport says {@code 10}, and
   * both are the same request (one fingerprint), so the validator must see the form they share. The
   * caller's mapper is not used, so that its features cannot change what a validator sees.
   */
  private static JsonNode canonicalTree(byte[] canonical) {
    try {
      return PLAIN.readTree(canonical);
    } catch (IOException e) {
      // Canonical text is JSON by construction; this would be a defect of the canonicalizer.
      throw new IllegalStateException("canonical arguments do not parse", e);
    }
  }

  private JsonNode toTree(Object arguments) {
    return toTree(arguments, "arguments");
  }

  /**
   * Returns a value as a Jackson tree, or refuses it as {@code field} with a typed error when
   * Jackson cannot convert it. A Jackson 3 tree is converted through its JSON text; any other
   * Jackson 3 object is refused (see {@link Mappers}).
   */
  public JsonNode toTree(Object value, String field) {
    if (value instanceof JsonNode node) {
      return node;
    }
    if (Mappers.isJackson3(value)) {
      try {
        return Mappers.fromJackson3(value);
      } catch (IllegalArgumentException e) {
        throw new InvalidRequestException(field, "cannot be turned into JSON: " + e.getMessage());
      }
    }
    try {
      return mapper.valueToTree(value);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(field, "cannot be turned into JSON: " + e.getMessage());
    } catch (StackOverflowError e) {
      // Jackson recurses once per level and detects a cycle only through a bean's own getter: a
      // map or list that holds itself (or nesting deeper than the stack) ends here. Nothing has
      // been written yet, and the stack is unwound by the time this handler runs.
      throw new InvalidRequestException(
          field, "cannot be turned into JSON: it refers to itself (a cycle) or is nested too deep");
    }
  }

  /**
   * Refuses control characters and unpaired surrogates first, whatever the pattern allows (see
   * {@link Identifiers}), then anything the pattern does not match entirely.
   */
  private static void check(String field, String value, Pattern pattern) {
    if (value != null) {
      Identifiers.check(field, value);
    }
    if (value == null || !pattern.matcher(value).matches()) {
      throw new InvalidRequestException(
          field, "must match " + pattern.pattern() + ", got " + printable(value));
    }
  }

  private static String printable(String value) {
    if (value == null) {
      return "null";
    }
    String cut = value.length() > 40 ? value.substring(0, 40) + "..." : value;
    return '"' + cut.replaceAll("\\p{Cntrl}", "?") + "\" (" + value.length() + " chars)";
  }
}
