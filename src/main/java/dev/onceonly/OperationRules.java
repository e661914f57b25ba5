package dev.onceonly;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Rules of one operation, set with {@link OnceOnlyBuilder#operation}: a key pattern of its own
 * instead of the instance's, a {@link RequestValidator} that sees the key as well as the arguments,
 * and whether a step runs only for a registered intent. Operations without rules keep the
 * instance's settings.
 *
 * <pre>{@code
 * OnceOnly.builder()
 *     .operation("refund", OperationRules.builder()
 *         .keyPattern("rf-[0-9]{8}")
 *         .validator((key, args) -> refunds.checkOrderOf(key, args))
 *         .requireRegisteredIntent()
 *         .build())
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class OperationRules {
  private final Pattern keyPattern;
  private final RequestValidator validator;
  private final boolean requireRegisteredIntent;

  private OperationRules(Builder b) {
    this.keyPattern = b.keyPattern;
    this.validator = b.validator;
    this.requireRegisteredIntent = b.requireRegisteredIntent;
  }

  /** {@return a builder with no rule set: the instance's settings apply} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the operation's own key pattern, or empty for the instance's} */
  public Optional<String> keyPattern() {
    return Optional.ofNullable(keyPattern).map(Pattern::pattern);
  }

  /** {@return the operation's request validator, or empty} */
  public Optional<RequestValidator> validator() {
    return Optional.ofNullable(validator);
  }

  /** {@return whether a step of the operation runs only for a registered intent} */
  public boolean requiresRegisteredIntent() {
    return requireRegisteredIntent;
  }

  /** Builds {@link OperationRules}. Not thread-safe. */
  public static final class Builder {
    private Pattern keyPattern;
    private RequestValidator validator;
    private boolean requireRegisteredIntent;

    private Builder() {}

    /**
     * Sets the pattern every key of this operation must match entirely, instead of the instance's
     * {@link OnceOnlyBuilder#keyPattern}. Control characters and unpaired surrogates are refused
     * whatever it allows. Lookups by key alone ({@code find}) accept a key that the instance's
     * pattern or any operation's pattern admits.
     *
     * @param regex a regular expression
     * @return this builder
     * @throws java.util.regex.PatternSyntaxException if it is not a valid expression
     */
    public Builder keyPattern(String regex) {
      this.keyPattern = Pattern.compile(Objects.requireNonNull(regex, "keyPattern"));
      return this;
    }

    /**
     * Sets a check of the whole request (key and canonical arguments), run before anything is
     * written, after the operation's {@link OnceOnlyBuilder#validator arguments validator} if one
     * is set.
     *
     * @param validator the check
     * @return this builder
     */
    public Builder validator(RequestValidator validator) {
      this.validator = Objects.requireNonNull(validator, "validator");
      return this;
    }

    /**
     * Makes every {@link ReceiptStore#execute} of this operation, in a transaction of its own or
     * joined, run its effect only if the key was registered first ({@link IntentStore#register}),
     * checked inside the step's transaction. A key with no registered intent is refused with {@link
     * IntentNotRegisteredException}; one registered with other arguments (the request was changed
     * since it was registered) is {@link Outcome.Conflict}, as for every operation. Either way the
     * effect does not run and nothing is written. A key whose receipt exists is answered from the
     * receipt, as always. The registration may happen in the same transaction, just before the
     * step. The check applies to every receipts step of the operation, whatever path its request
     * came by (an {@link dev.onceonly.queue.IntentMessage} through a queue, a Redis stream);
     * external claims do not check registration. Default: off.
     *
     * @return this builder
     */
    public Builder requireRegisteredIntent() {
      this.requireRegisteredIntent = true;
      return this;
    }

    /** {@return the rules} */
    public OperationRules build() {
      return new OperationRules(this);
    }
  }
}
