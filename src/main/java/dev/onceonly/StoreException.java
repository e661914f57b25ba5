package dev.onceonly;

import java.sql.SQLException;

/**
 * The database refused or failed an operation: busy beyond its timeout, read-only, full, corrupt,
 * unreachable, or holding a schema newer than this library. Whatever the step was, it did not
 * commit; in particular an effect whose step ends with this exception was rolled back.
 */
public class StoreException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** The SQL state, or null. */
  private final String sqlState;

  /** The driver's vendor error code, or 0. */
  private final int vendorCode;

  /** The dialect's id. */
  private final String dialect;

  /**
   * Creates the exception.
   *
   * @param message what failed, for a person
   * @param dialect the dialect's {@code id()}, or {@code "unknown"}
   * @param cause the driver's exception, or {@code null}
   */
  public StoreException(String message, String dialect, Throwable cause) {
    super(message + (cause == null ? "" : ": " + cause.getMessage()), cause);
    this.dialect = dialect;
    if (cause instanceof SQLException sql) {
      this.sqlState = sql.getSQLState();
      this.vendorCode = sql.getErrorCode();
    } else {
      this.sqlState = null;
      this.vendorCode = 0;
    }
  }

  /** {@return the SQL state of the driver's exception, or {@code null}} */
  public String sqlState() {
    return sqlState;
  }

  /** {@return the driver's vendor error code (for SQLite, the extended result code), or 0} */
  public int vendorCode() {
    return vendorCode;
  }

  /** {@return the dialect that produced the error} */
  public String dialect() {
    return dialect;
  }
}
