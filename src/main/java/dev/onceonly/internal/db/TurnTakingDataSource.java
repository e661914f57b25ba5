package dev.onceonly.internal.db;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A data source whose SQLite connections come {@linkplain TurnTakingConnection turn-taking}. */
public final class TurnTakingDataSource implements DataSource {
  private final DataSource target;

  /**
   * Wraps a data source.
   *
   * @param target the application's data source (usually a pool)
   */
  public TurnTakingDataSource(DataSource target) {
    this.target = target;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return TurnTakingConnection.wrap(target.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return TurnTakingConnection.wrap(target.getConnection(username, password));
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return target.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return iface.isInstance(this) || target.isWrapperFor(iface);
  }

  @Override
  public String toString() {
    return "SqliteWriteTurns[" + target + "]";
  }
}
