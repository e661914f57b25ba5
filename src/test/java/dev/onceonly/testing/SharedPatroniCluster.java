package dev.onceonly.testing;

import dev.onceonly.testing.PatroniCluster.Replication;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The one synchronous {@link PatroniCluster} of a test JVM, shared by every failover class that
 * extends with this ({@code @ExtendWith(SharedPatroniCluster.class)}) and takes a {@code
 * PatroniCluster} parameter: the first class started starts it, and it is closed when the whole run
 * ends (an {@link AutoCloseable} in the root context's store), so that a {@code verify} run pays
 * one cluster start for all of them, and a class run alone starts and closes its own. Each test
 * takes a database of its own ({@link PatroniCluster#createDatabase}); the cluster is handed over
 * once every node runs again and one is the synchronous standby, whatever the test before did to
 * it. Without Patroni, etcd or PostgreSQL 15 the class is skipped with one line (failed under
 * {@code CI=true}), as by {@link PatroniCluster#start}.
 */
public final class SharedPatroniCluster implements BeforeAllCallback, ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(SharedPatroniCluster.class);

  /** For JUnit. */
  public SharedPatroniCluster() {}

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster(context); // started here, where a missing package aborts the class, not a parameter
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PatroniCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    PatroniCluster cluster = cluster(context);
    cluster.awaitHealthy();
    return cluster;
  }

  private static PatroniCluster cluster(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .computeIfAbsent(
            PatroniCluster.class,
            k -> PatroniCluster.start(Replication.SYNCHRONOUS),
            PatroniCluster.class);
  }
}
