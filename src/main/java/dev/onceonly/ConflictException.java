package dev.onceonly;

/**
 * The key already belongs to other content. Thrown only by {@link Outcome#resultOrThrow()} and
 * {@link Registration#orThrow()}; the stores return {@link Outcome.Conflict} as a value.
 */
public final class ConflictException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  private final transient IntentKey key;
  private final transient Fingerprint stored;
  private final transient Fingerprint requested;

  /**
   * Creates the exception.
   *
   * @param key the intent
   * @param stored the fingerprint already recorded for the key
   * @param requested the fingerprint of the refused request
   */
  public ConflictException(IntentKey key, Fingerprint stored, Fingerprint requested) {
    super("key " + key + " already belongs to " + stored + ", not " + requested, null);
    this.key = key;
    this.stored = stored;
    this.requested = requested;
  }

  /** {@return the intent} */
  public IntentKey key() {
    return key;
  }

  /** {@return the fingerprint already recorded for the key} */
  public Fingerprint stored() {
    return stored;
  }

  /** {@return the fingerprint of the refused request} */
  public Fingerprint requested() {
    return requested;
  }
}
