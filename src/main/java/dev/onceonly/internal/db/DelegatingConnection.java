package dev.onceonly.internal.db;

import java.sql.SQLException;

/**
 * A {@link java.sql.Connection} that forwards every call to another one: the base of the library's
 * connection wrappers, a plain class rather than a {@link java.lang.reflect.Proxy} so that a call
 * costs one virtual dispatch instead of a reflective invocation.
 */
abstract class DelegatingConnection implements java.sql.Connection {
  /** The connection calls go to. */
  final java.sql.Connection target;

  DelegatingConnection(java.sql.Connection target) {
    this.target = target;
  }

  @Override
  public void abort(java.util.concurrent.Executor a0) throws SQLException {
    target.abort(a0);
  }

  @Override
  public void beginRequest() throws SQLException {
    target.beginRequest();
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
  public void commit() throws SQLException {
    target.commit();
  }

  @Override
  public java.sql.Array createArrayOf(java.lang.String a0, java.lang.Object[] a1)
      throws SQLException {
    return target.createArrayOf(a0, a1);
  }

  @Override
  public java.sql.Blob createBlob() throws SQLException {
    return target.createBlob();
  }

  @Override
  public java.sql.Clob createClob() throws SQLException {
    return target.createClob();
  }

  @Override
  public java.sql.NClob createNClob() throws SQLException {
    return target.createNClob();
  }

  @Override
  public java.sql.SQLXML createSQLXML() throws SQLException {
    return target.createSQLXML();
  }

  @Override
  public java.sql.Statement createStatement() throws SQLException {
    return target.createStatement();
  }

  @Override
  public java.sql.Statement createStatement(int a0, int a1, int a2) throws SQLException {
    return target.createStatement(a0, a1, a2);
  }

  @Override
  public java.sql.Statement createStatement(int a0, int a1) throws SQLException {
    return target.createStatement(a0, a1);
  }

  @Override
  public java.sql.Struct createStruct(java.lang.String a0, java.lang.Object[] a1)
      throws SQLException {
    return target.createStruct(a0, a1);
  }

  @Override
  public void endRequest() throws SQLException {
    target.endRequest();
  }

  @Override
  public boolean getAutoCommit() throws SQLException {
    return target.getAutoCommit();
  }

  @Override
  public java.lang.String getCatalog() throws SQLException {
    return target.getCatalog();
  }

  @Override
  public java.util.Properties getClientInfo() throws SQLException {
    return target.getClientInfo();
  }

  @Override
  public java.lang.String getClientInfo(java.lang.String a0) throws SQLException {
    return target.getClientInfo(a0);
  }

  @Override
  public int getHoldability() throws SQLException {
    return target.getHoldability();
  }

  @Override
  public java.sql.DatabaseMetaData getMetaData() throws SQLException {
    return target.getMetaData();
  }

  @Override
  public int getNetworkTimeout() throws SQLException {
    return target.getNetworkTimeout();
  }

  @Override
  public java.lang.String getSchema() throws SQLException {
    return target.getSchema();
  }

  @Override
  public int getTransactionIsolation() throws SQLException {
    return target.getTransactionIsolation();
  }

  @Override
  public java.util.Map<java.lang.String, java.lang.Class<?>> getTypeMap() throws SQLException {
    return target.getTypeMap();
  }

  @Override
  public java.sql.SQLWarning getWarnings() throws SQLException {
    return target.getWarnings();
  }

  @Override
  public boolean isClosed() throws SQLException {
    return target.isClosed();
  }

  @Override
  public boolean isReadOnly() throws SQLException {
    return target.isReadOnly();
  }

  @Override
  public boolean isValid(int a0) throws SQLException {
    return target.isValid(a0);
  }

  @Override
  public boolean isWrapperFor(java.lang.Class<?> a0) throws SQLException {
    return target.isWrapperFor(a0);
  }

  @Override
  public java.lang.String nativeSQL(java.lang.String a0) throws SQLException {
    return target.nativeSQL(a0);
  }

  @Override
  public java.sql.CallableStatement prepareCall(java.lang.String a0, int a1, int a2, int a3)
      throws SQLException {
    return target.prepareCall(a0, a1, a2, a3);
  }

  @Override
  public java.sql.CallableStatement prepareCall(java.lang.String a0, int a1, int a2)
      throws SQLException {
    return target.prepareCall(a0, a1, a2);
  }

  @Override
  public java.sql.CallableStatement prepareCall(java.lang.String a0) throws SQLException {
    return target.prepareCall(a0);
  }

  @Override
  public java.sql.PreparedStatement prepareStatement(java.lang.String a0, int[] a1)
      throws SQLException {
    return target.prepareStatement(a0, a1);
  }

  @Override
  public java.sql.PreparedStatement prepareStatement(java.lang.String a0, java.lang.String[] a1)
      throws SQLException {
    return target.prepareStatement(a0, a1);
  }

  @Override
  public java.sql.PreparedStatement prepareStatement(java.lang.String a0, int a1, int a2, int a3)
      throws SQLException {
    return target.prepareStatement(a0, a1, a2, a3);
  }

  @Override
  public java.sql.PreparedStatement prepareStatement(java.lang.String a0, int a1, int a2)
      throws SQLException {
    return target.prepareStatement(a0, a1, a2);
  }

  @Override
  public java.sql.PreparedStatement prepareStatement(java.lang.String a0, int a1)
      throws SQLException {
    return target.prepareStatement(a0, a1);
  }

  @Override
  public java.sql.PreparedStatement prepareStatement(java.lang.String a0) throws SQLException {
    return target.prepareStatement(a0);
  }

  @Override
  public void releaseSavepoint(java.sql.Savepoint a0) throws SQLException {
    target.releaseSavepoint(a0);
  }

  @Override
  public void rollback() throws SQLException {
    target.rollback();
  }

  @Override
  public void rollback(java.sql.Savepoint a0) throws SQLException {
    target.rollback(a0);
  }

  @Override
  public void setAutoCommit(boolean a0) throws SQLException {
    target.setAutoCommit(a0);
  }

  @Override
  public void setCatalog(java.lang.String a0) throws SQLException {
    target.setCatalog(a0);
  }

  @Override
  public void setClientInfo(java.lang.String a0, java.lang.String a1)
      throws java.sql.SQLClientInfoException {
    target.setClientInfo(a0, a1);
  }

  @Override
  public void setClientInfo(java.util.Properties a0) throws java.sql.SQLClientInfoException {
    target.setClientInfo(a0);
  }

  @Override
  public void setHoldability(int a0) throws SQLException {
    target.setHoldability(a0);
  }

  @Override
  public void setNetworkTimeout(java.util.concurrent.Executor a0, int a1) throws SQLException {
    target.setNetworkTimeout(a0, a1);
  }

  @Override
  public void setReadOnly(boolean a0) throws SQLException {
    target.setReadOnly(a0);
  }

  @Override
  public java.sql.Savepoint setSavepoint() throws SQLException {
    return target.setSavepoint();
  }

  @Override
  public java.sql.Savepoint setSavepoint(java.lang.String a0) throws SQLException {
    return target.setSavepoint(a0);
  }

  @Override
  public void setSchema(java.lang.String a0) throws SQLException {
    target.setSchema(a0);
  }

  @Override
  public void setShardingKey(java.sql.ShardingKey a0, java.sql.ShardingKey a1) throws SQLException {
    target.setShardingKey(a0, a1);
  }

  @Override
  public void setShardingKey(java.sql.ShardingKey a0) throws SQLException {
    target.setShardingKey(a0);
  }

  @Override
  public boolean setShardingKeyIfValid(java.sql.ShardingKey a0, int a1) throws SQLException {
    return target.setShardingKeyIfValid(a0, a1);
  }

  @Override
  public boolean setShardingKeyIfValid(java.sql.ShardingKey a0, java.sql.ShardingKey a1, int a2)
      throws SQLException {
    return target.setShardingKeyIfValid(a0, a1, a2);
  }

  @Override
  public void setTransactionIsolation(int a0) throws SQLException {
    target.setTransactionIsolation(a0);
  }

  @Override
  public void setTypeMap(java.util.Map<java.lang.String, java.lang.Class<?>> a0)
      throws SQLException {
    target.setTypeMap(a0);
  }

  @Override
  public <T> T unwrap(java.lang.Class<T> a0) throws SQLException {
    return target.unwrap(a0);
  }
}
