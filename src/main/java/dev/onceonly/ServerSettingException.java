package dev.onceonly;

/**
 * A setting of the database server or of the session would make the library's writes fail or
 * silently store something else than they were given, so the store refuses it before anything is
 * written: at {@code build()}, or for a session setting on the first use of a connection set
 * otherwise. The message names the setting, the value read and the value to set.
 *
 * <p>On MariaDB: a binary log in {@code STATEMENT} format (every write would fail with error 1665),
 * {@code sql_mode=ORACLE} (the scripts and statements are MariaDB's own SQL), and a session whose
 * {@code character_set_client}, {@code character_set_connection} or {@code character_set_results}
 * is not {@code utf8mb4} (text would be stored converted, cut short or as {@code ?}).
 */
public class ServerSettingException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** The setting's name, as the server spells it. */
  private final String setting;

  /** The value read. */
  private final String value;

  /**
   * Creates the exception.
   *
   * @param message what is wrong and what to set instead, for a person
   * @param dialect the dialect's {@code id()}
   * @param setting the setting's name, as the server spells it
   * @param value the value read, or null
   */
  public ServerSettingException(String message, String dialect, String setting, String value) {
    super(message, dialect, null);
    this.setting = setting;
    this.value = value;
  }

  /** {@return the setting's name, as the server spells it ({@code binlog_format})} */
  public String setting() {
    return setting;
  }

  /** {@return the value read, or null} */
  public String value() {
    return value;
  }
}
