package dev.onceonly.internal.queue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Wake-ups across instances on PostgreSQL: a send also issues {@code pg_notify(channel, queue)} in
 * its own transaction (so the notification goes out only if the send commits), and a thread of each
 * instance holds a {@code LISTEN} on a direct connection and fires the local {@link QueueSignals}
 * for every notification, waking idle workers at once instead of at their next poll.
 *
 * <p>A hint only, as in-process wake-ups are: polling still delivers everything. The listening
 * connection must be a direct one (PgBouncer's transaction pooling cannot keep a {@code LISTEN});
 * sends may go through any pool. The driver is reached by reflection so that it stays a run-time
 * dependency of the application, not of this library. If the connection fails, the thread opens
 * another after a pause; notifications sent meanwhile are lost, which only delays a worker. The
 * first failure of a run of failures is logged once at {@code WARNING} (with the cause), and the
 * return to listening at {@code INFO}; the retries in between log nothing.
 */
public final class SendNotifications implements AutoCloseable {
  private static final int WAIT_MILLIS = 500;
  private static final long RETRY_PAUSE_MILLIS = 1_000;
  private static final System.Logger LOG = System.getLogger(SendNotifications.class.getName());

  private final String channel;
  private final DataSource direct;
  private final QueueSignals signals;
  private final Thread listener;
  private volatile boolean closed;
  private volatile Connection connection;
  private boolean failing; // only the listener thread reads and writes it

  private SendNotifications(String channel, DataSource direct, QueueSignals signals) {
    this.channel = channel;
    this.direct = direct;
    this.signals = signals;
    this.listener = new Thread(this::listen, "onceonly-listen-" + channel);
    listener.setDaemon(true);
  }

  /** Returns the channel of a table prefix (the prefix is validated, so a plain identifier). */
  public static String channel(String prefix) {
    return prefix + "sends";
  }

  /** Starts listening on a connection from {@code direct}. */
  public static SendNotifications start(String prefix, DataSource direct, QueueSignals signals) {
    SendNotifications n = new SendNotifications(channel(prefix), direct, signals);
    n.listener.start();
    return n;
  }

  /** Notifies every listening instance, when the transaction of {@code c} commits. */
  static void notifySent(Connection c, String channel, String queue) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      ps.setString(1, channel);
      ps.setString(2, queue);
      ps.execute();
    }
  }

  private void listen() {
    while (!closed) {
      try (Connection c = direct.getConnection()) {
        connection = c;
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + channel);
        }
        if (failing) {
          failing = false;
          LOG.log(System.Logger.Level.INFO, "listening for sends on channel {0} again", channel);
        }
        Notifications source = Notifications.of(c);
        while (!closed) {
          for (String queue : source.await(WAIT_MILLIS)) {
            signals.fire(queue);
          }
        }
      } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
        if (!closed) {
          warnOnce(e);
          pause(); // the server restarted or the network failed: listen again shortly
        }
      } finally {
        connection = null;
      }
    }
  }

  private void warnOnce(Exception e) {
    if (!failing) {
      failing = true;
      LOG.log(
          System.Logger.Level.WARNING,
          "listening for sends on channel "
              + channel
              + " failed; idle workers wake at their next poll until it listens again",
          e);
    }
  }

  private void pause() {
    try {
      TimeUnit.MILLISECONDS.sleep(RETRY_PAUSE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  /** The driver's {@code PGConnection.getNotifications(int)}, reached by reflection. */
  private record Notifications(Object pgConnection, Method await, Method parameter) {
    static Notifications of(Connection c) throws SQLException, ReflectiveOperationException {
      ClassLoader loader = c.getClass().getClassLoader();
      Class<?> pg = Class.forName("org.postgresql.PGConnection", true, loader);
      Class<?> notification = Class.forName("org.postgresql.PGNotification", true, loader);
      return new Notifications(
          c.unwrap(pg),
          pg.getMethod("getNotifications", int.class),
          notification.getMethod("getParameter"));
    }

    java.util.List<String> await(int millis) throws SQLException, ReflectiveOperationException {
      Object[] got;
      try {
        got = (Object[]) await.invoke(pgConnection, millis);
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof SQLException s) {
          throw s;
        }
        throw e;
      }
      if (got == null) {
        return java.util.List.of();
      }
      java.util.List<String> queues = new java.util.ArrayList<>(got.length);
      for (Object n : got) {
        queues.add((String) parameter.invoke(n));
      }
      return queues;
    }
  }

  /** Stops listening and closes the connection. */
  @Override
  public void close() {
    closed = true;
    Connection c = connection;
    if (c != null) {
      try {
        c.close(); // ends a wait in progress
      } catch (SQLException e) {
        // closing anyway
      }
    }
    try {
      listener.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
