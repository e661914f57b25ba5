package dev.onceonly.internal.db;

import dev.onceonly.ConnectionMisuseException;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * The connection an effect (or a queue's work) is lent: the step's connection, minus everything
 * that would let the effect end, nest or outlive the library's transaction. Refused, with {@link
 * ConnectionMisuseException} and before anything reaches the database: {@code commit}, {@code
 * rollback}, {@code close}, {@code abort}, {@code setAutoCommit}, savepoints, {@code setReadOnly},
 * {@code setTransactionIsolation}, {@code setCatalog}, {@code setSchema}, {@code setClientInfo},
 * {@code setNetworkTimeout}, {@code setHoldability}, {@code setTypeMap}, and SQL text that {@link
 * SqlGuard} refuses, given to {@code prepareStatement}, {@code prepareCall} or a statement's {@code
 * execute*} and {@code addBatch}. The first refusal is remembered: {@link #check} throws it after
 * the effect returned, so an effect that caught it still has its step rolled back.
 *
 * <p>Not guarded: what an effect reaches around this object, through {@code unwrap}, a statement's
 * or result set's {@code getConnection()}/{@code getStatement()} of a prepared statement, or a
 * connection kept after the effect returned.
 */
public final class EffectConnection extends DelegatingConnection {
  private ConnectionMisuseException refused;

  private EffectConnection(Connection target) {
    super(target);
  }

  /** Returns {@code c} guarded for an effect; an already guarded connection is returned as is. */
  public static EffectConnection lend(Connection c) {
    return c instanceof EffectConnection e ? e : new EffectConnection(c);
  }

  /**
   * Returns the connection under {@code c} if {@code c} is one lent to an effect, else {@code c}.
   */
  static Connection unlent(Connection c) {
    return c instanceof EffectConnection e ? e.target : c;
  }

  /** Throws the first refusal of the effect's lifetime, if any. */
  public void check() {
    if (refused != null) {
      throw refused;
    }
  }

  private ConnectionMisuseException refuse(String what) {
    ConnectionMisuseException e = new ConnectionMisuseException(what);
    if (refused == null) {
      refused = e;
    }
    return e;
  }

  String checked(String sql) {
    String word = SqlGuard.refused(sql);
    if (word != null) {
      throw refuse("run " + word);
    }
    return sql;
  }

  @Override
  public Statement createStatement() throws SQLException {
    return new GuardedStatement(this, target.createStatement());
  }

  @Override
  public Statement createStatement(int a0, int a1) throws SQLException {
    return new GuardedStatement(this, target.createStatement(a0, a1));
  }

  @Override
  public Statement createStatement(int a0, int a1, int a2) throws SQLException {
    return new GuardedStatement(this, target.createStatement(a0, a1, a2));
  }

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    return target.prepareStatement(checked(sql));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int a1) throws SQLException {
    return target.prepareStatement(checked(sql), a1);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int[] a1) throws SQLException {
    return target.prepareStatement(checked(sql), a1);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, String[] a1) throws SQLException {
    return target.prepareStatement(checked(sql), a1);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int a1, int a2) throws SQLException {
    return target.prepareStatement(checked(sql), a1, a2);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int a1, int a2, int a3)
      throws SQLException {
    return target.prepareStatement(checked(sql), a1, a2, a3);
  }

  @Override
  public CallableStatement prepareCall(String sql) throws SQLException {
    return target.prepareCall(checked(sql));
  }

  @Override
  public CallableStatement prepareCall(String sql, int a1, int a2) throws SQLException {
    return target.prepareCall(checked(sql), a1, a2);
  }

  @Override
  public CallableStatement prepareCall(String sql, int a1, int a2, int a3) throws SQLException {
    return target.prepareCall(checked(sql), a1, a2, a3);
  }

  @Override
  public void commit() {
    throw refuse("commit()");
  }

  @Override
  public void rollback() {
    throw refuse("rollback()");
  }

  @Override
  public void rollback(Savepoint a0) {
    throw refuse("rollback(Savepoint)");
  }

  @Override
  public void setAutoCommit(boolean a0) {
    throw refuse("setAutoCommit(" + a0 + ")");
  }

  @Override
  public void close() {
    throw refuse("close()");
  }

  @Override
  public void abort(Executor a0) {
    throw refuse("abort(Executor)");
  }

  @Override
  public Savepoint setSavepoint() {
    throw refuse("setSavepoint()");
  }

  @Override
  public Savepoint setSavepoint(String a0) {
    throw refuse("setSavepoint(String)");
  }

  @Override
  public void releaseSavepoint(Savepoint a0) {
    throw refuse("releaseSavepoint(Savepoint)");
  }

  @Override
  public void setReadOnly(boolean a0) {
    throw refuse("setReadOnly(" + a0 + ")");
  }

  @Override
  public void setTransactionIsolation(int a0) {
    throw refuse("setTransactionIsolation(" + a0 + ")");
  }

  @Override
  public void setCatalog(String a0) {
    throw refuse("setCatalog(String)");
  }

  @Override
  public void setSchema(String a0) {
    throw refuse("setSchema(String)");
  }

  @Override
  public void setClientInfo(String a0, String a1) {
    throw refuse("setClientInfo(String, String)");
  }

  @Override
  public void setClientInfo(Properties a0) {
    throw refuse("setClientInfo(Properties)");
  }

  @Override
  public void setNetworkTimeout(Executor a0, int a1) {
    throw refuse("setNetworkTimeout(Executor, int)");
  }

  @Override
  public void setHoldability(int a0) {
    throw refuse("setHoldability(int)");
  }

  @Override
  public void setTypeMap(Map<String, Class<?>> a0) {
    throw refuse("setTypeMap(Map)");
  }

  /** A plain statement whose SQL is checked at every execution and batch entry. */
  private static final class GuardedStatement extends DelegatingStatement {
    private final EffectConnection owner;

    GuardedStatement(EffectConnection owner, Statement target) {
      super(target);
      this.owner = owner;
    }

    @Override
    public Connection getConnection() {
      return owner;
    }

    @Override
    public void addBatch(String sql) throws SQLException {
      target.addBatch(owner.checked(sql));
    }

    @Override
    public boolean execute(String sql) throws SQLException {
      return target.execute(owner.checked(sql));
    }

    @Override
    public boolean execute(String sql, int a1) throws SQLException {
      return target.execute(owner.checked(sql), a1);
    }

    @Override
    public boolean execute(String sql, int[] a1) throws SQLException {
      return target.execute(owner.checked(sql), a1);
    }

    @Override
    public boolean execute(String sql, String[] a1) throws SQLException {
      return target.execute(owner.checked(sql), a1);
    }

    @Override
    public java.sql.ResultSet executeQuery(String sql) throws SQLException {
      return target.executeQuery(owner.checked(sql));
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
      return target.executeUpdate(owner.checked(sql));
    }

    @Override
    public int executeUpdate(String sql, int a1) throws SQLException {
      return target.executeUpdate(owner.checked(sql), a1);
    }

    @Override
    public int executeUpdate(String sql, int[] a1) throws SQLException {
      return target.executeUpdate(owner.checked(sql), a1);
    }

    @Override
    public int executeUpdate(String sql, String[] a1) throws SQLException {
      return target.executeUpdate(owner.checked(sql), a1);
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
      return target.executeLargeUpdate(owner.checked(sql));
    }

    @Override
    public long executeLargeUpdate(String sql, int a1) throws SQLException {
      return target.executeLargeUpdate(owner.checked(sql), a1);
    }

    @Override
    public long executeLargeUpdate(String sql, int[] a1) throws SQLException {
      return target.executeLargeUpdate(owner.checked(sql), a1);
    }

    @Override
    public long executeLargeUpdate(String sql, String[] a1) throws SQLException {
      return target.executeLargeUpdate(owner.checked(sql), a1);
    }
  }
}
