package dev.onceonly.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A data source that hands every call to whichever real data source the test points it at, and
 * counts the connections asked for: a server that goes away and comes back, without mocking one.
 */
public final class SwitchingDataSource {
  private final AtomicReference<DataSource> target;
  private final AtomicInteger connects = new AtomicInteger();
  private final DataSource proxy;

  /** Starts pointing at {@code first}. */
  public SwitchingDataSource(DataSource first) {
    this.target = new AtomicReference<>(first);
    this.proxy =
        (DataSource)
            Proxy.newProxyInstance(
                DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (p, method, args) -> {
                  if (method.getName().equals("getConnection")) {
                    connects.incrementAndGet();
                  }
                  try {
                    return method.invoke(target.get(), args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
  }

  /** Returns the data source to hand to the code under test. */
  public DataSource dataSource() {
    return proxy;
  }

  /** Points every later call at {@code next}. */
  public void pointAt(DataSource next) {
    target.set(next);
  }

  /** Returns how many connections were asked for so far. */
  public int connects() {
    return connects.get();
  }

  /**
   * Returns a real PostgreSQL data source on a loopback port nobody listens on: every connection is
   * refused at once.
   */
  public static DataSource refusedPostgres() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: a connection to it is refused
    }
    PGSimpleDataSource refused = new PGSimpleDataSource();
    refused.setServerNames(new String[] {"127.0.0.1"});
    refused.setPortNumbers(new int[] {port});
    refused.setUser("postgres");
    refused.setConnectTimeout(2);
    return refused;
  }
}
