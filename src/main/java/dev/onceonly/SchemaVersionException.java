package dev.onceonly;

/**
 * The database's OnceOnly schema is not the version this library needs: missing, older (with
 * migrations left to a tool such as Flyway or Liquibase, see {@link OnceOnly.Migrations#VALIDATE}),
 * or newer than this library knows. Nothing was written; the message says what to do.
 */
public class SchemaVersionException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** The version found, 0 when there is no schema. */
  private final int found;

  /** The version this library needs. */
  private final int required;

  /**
   * Creates the exception.
   *
   * @param message what is wrong and what to do, for a person
   * @param dialect the dialect's {@code id()}
   * @param found the version found, 0 when there is no schema
   * @param required the version this library needs
   */
  public SchemaVersionException(String message, String dialect, int found, int required) {
    super(message, dialect, null);
    this.found = found;
    this.required = required;
  }

  /** {@return the schema version found in the database, 0 when it has none under the prefix} */
  public int found() {
    return found;
  }

  /** {@return the schema version this library needs} */
  public int required() {
    return required;
  }
}
