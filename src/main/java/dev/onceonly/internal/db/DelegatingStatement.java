package dev.onceonly.internal.db;

import java.sql.SQLException;

/** A {@link java.sql.Statement} that forwards every call to another one. */
abstract class DelegatingStatement implements java.sql.Statement {
  /** The statement calls go to. */
  final java.sql.Statement target;

  DelegatingStatement(java.sql.Statement target) {
    this.target = target;
  }

  @Override
  public void addBatch(java.lang.String a0) throws SQLException {
    target.addBatch(a0);
  }

  @Override
  public void cancel() throws SQLException {
    target.cancel();
  }

  @Override
  public void clearBatch() throws SQLException {
    target.clearBatch();
  }

  @Override
  public void clearWarnings() throws SQLException {
    target.clearWarnings();
  }

  @Override
  public void close() throws SQLException {
    target.close();
  }

  @Override
  public void closeOnCompletion() throws SQLException {
    target.closeOnCompletion();
  }

  @Override
  public java.lang.String enquoteIdentifier(java.lang.String a0, boolean a1) throws SQLException {
    return target.enquoteIdentifier(a0, a1);
  }

  @Override
  public java.lang.String enquoteLiteral(java.lang.String a0) throws SQLException {
    return target.enquoteLiteral(a0);
  }

  @Override
  public java.lang.String enquoteNCharLiteral(java.lang.String a0) throws SQLException {
    return target.enquoteNCharLiteral(a0);
  }

  @Override
  public boolean execute(java.lang.String a0, int[] a1) throws SQLException {
    return target.execute(a0, a1);
  }

  @Override
  public boolean execute(java.lang.String a0, java.lang.String[] a1) throws SQLException {
    return target.execute(a0, a1);
  }

  @Override
  public boolean execute(java.lang.String a0, int a1) throws SQLException {
    return target.execute(a0, a1);
  }

  @Override
  public boolean execute(java.lang.String a0) throws SQLException {
    return target.execute(a0);
  }

  @Override
  public int[] executeBatch() throws SQLException {
    return target.executeBatch();
  }

  @Override
  public long[] executeLargeBatch() throws SQLException {
    return target.executeLargeBatch();
  }

  @Override
  public long executeLargeUpdate(java.lang.String a0, int[] a1) throws SQLException {
    return target.executeLargeUpdate(a0, a1);
  }

  @Override
  public long executeLargeUpdate(java.lang.String a0, java.lang.String[] a1) throws SQLException {
    return target.executeLargeUpdate(a0, a1);
  }

  @Override
  public long executeLargeUpdate(java.lang.String a0, int a1) throws SQLException {
    return target.executeLargeUpdate(a0, a1);
  }

  @Override
  public long executeLargeUpdate(java.lang.String a0) throws SQLException {
    return target.executeLargeUpdate(a0);
  }

  @Override
  public java.sql.ResultSet executeQuery(java.lang.String a0) throws SQLException {
    return target.executeQuery(a0);
  }

  @Override
  public int executeUpdate(java.lang.String a0, int[] a1) throws SQLException {
    return target.executeUpdate(a0, a1);
  }

  @Override
  public int executeUpdate(java.lang.String a0, java.lang.String[] a1) throws SQLException {
    return target.executeUpdate(a0, a1);
  }

  @Override
  public int executeUpdate(java.lang.String a0, int a1) throws SQLException {
    return target.executeUpdate(a0, a1);
  }

  @Override
  public int executeUpdate(java.lang.String a0) throws SQLException {
    return target.executeUpdate(a0);
  }

  @Override
  public java.sql.Connection getConnection() throws SQLException {
    return target.getConnection();
  }

  @Override
  public int getFetchDirection() throws SQLException {
    return target.getFetchDirection();
  }

  @Override
  public int getFetchSize() throws SQLException {
    return target.getFetchSize();
  }

  @Override
  public java.sql.ResultSet getGeneratedKeys() throws SQLException {
    return target.getGeneratedKeys();
  }

  @Override
  public long getLargeMaxRows() throws SQLException {
    return target.getLargeMaxRows();
  }

  @Override
  public long getLargeUpdateCount() throws SQLException {
    return target.getLargeUpdateCount();
  }

  @Override
  public int getMaxFieldSize() throws SQLException {
    return target.getMaxFieldSize();
  }

  @Override
  public int getMaxRows() throws SQLException {
    return target.getMaxRows();
  }

  @Override
  public boolean getMoreResults() throws SQLException {
    return target.getMoreResults();
  }

  @Override
  public boolean getMoreResults(int a0) throws SQLException {
    return target.getMoreResults(a0);
  }

  @Override
  public int getQueryTimeout() throws SQLException {
    return target.getQueryTimeout();
  }

  @Override
  public java.sql.ResultSet getResultSet() throws SQLException {
    return target.getResultSet();
  }

  @Override
  public int getResultSetConcurrency() throws SQLException {
    return target.getResultSetConcurrency();
  }

  @Override
  public int getResultSetHoldability() throws SQLException {
    return target.getResultSetHoldability();
  }

  @Override
  public int getResultSetType() throws SQLException {
    return target.getResultSetType();
  }

  @Override
  public int getUpdateCount() throws SQLException {
    return target.getUpdateCount();
  }

  @Override
  public java.sql.SQLWarning getWarnings() throws SQLException {
    return target.getWarnings();
  }

  @Override
  public boolean isCloseOnCompletion() throws SQLException {
    return target.isCloseOnCompletion();
  }

  @Override
  public boolean isClosed() throws SQLException {
    return target.isClosed();
  }

  @Override
  public boolean isPoolable() throws SQLException {
    return target.isPoolable();
  }

  @Override
  public boolean isSimpleIdentifier(java.lang.String a0) throws SQLException {
    return target.isSimpleIdentifier(a0);
  }

  @Override
  public boolean isWrapperFor(java.lang.Class<?> a0) throws SQLException {
    return target.isWrapperFor(a0);
  }

  @Override
  public void setCursorName(java.lang.String a0) throws SQLException {
    target.setCursorName(a0);
  }

  @Override
  public void setEscapeProcessing(boolean a0) throws SQLException {
    target.setEscapeProcessing(a0);
  }

  @Override
  public void setFetchDirection(int a0) throws SQLException {
    target.setFetchDirection(a0);
  }

  @Override
  public void setFetchSize(int a0) throws SQLException {
    target.setFetchSize(a0);
  }

  @Override
  public void setLargeMaxRows(long a0) throws SQLException {
    target.setLargeMaxRows(a0);
  }

  @Override
  public void setMaxFieldSize(int a0) throws SQLException {
    target.setMaxFieldSize(a0);
  }

  @Override
  public void setMaxRows(int a0) throws SQLException {
    target.setMaxRows(a0);
  }

  @Override
  public void setPoolable(boolean a0) throws SQLException {
    target.setPoolable(a0);
  }

  @Override
  public void setQueryTimeout(int a0) throws SQLException {
    target.setQueryTimeout(a0);
  }

  @Override
  public <T> T unwrap(java.lang.Class<T> a0) throws SQLException {
    return target.unwrap(a0);
  }
}
