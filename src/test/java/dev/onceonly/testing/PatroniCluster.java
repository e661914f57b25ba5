package dev.onceonly.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * A real PostgreSQL cluster for the failover tests: one {@code etcd} and three PostgreSQL 15 nodes
 * under Patroni, on free loopback ports, in a temporary folder, with the YAML written here. Started
 * by {@link #start}, stopped (folder deleted) by {@link #close} and, should a test not get there,
 * by a JVM shutdown hook.
 *
 * <p>Debian's {@code patroni}, {@code etcd-server} and {@code postgresql-15} packages must be
 * installed; without them the tests that need the cluster are skipped with one line saying so (a
 * JUnit abort), and with {@code CI=true} in the environment they fail instead. PostgreSQL refuses
 * to run as root, so under root each Patroni agent runs as the {@code postgres} user that Debian's
 * package creates ({@code setpriv --reuid postgres}), and the folder is handed to that user.
 *
 * <p>Each node's agent reaches etcd through a {@link TcpRelay} of its own, so a test can cut one
 * node off etcd (a network partition of that agent) and heal it.
 */
public final class PatroniCluster implements AutoCloseable {
  /** The replication mode written to Patroni's dynamic configuration. */
  public enum Replication {
    /** {@code synchronous_mode: true} with {@code synchronous_commit: on}. */
    SYNCHRONOUS,
    /** Patroni's default: asynchronous streaming replication. */
    ASYNCHRONOUS
  }

  private static final Path PATRONI = Path.of("/usr/bin/patroni");
  private static final Path PATRONICTL = Path.of("/usr/bin/patronictl");
  private static final Path ETCD = Path.of("/usr/bin/etcd");
  private static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");
  private static final String SUPERUSER_PASSWORD = "pg";
  private static final Duration READY = Duration.ofSeconds(180);
  private static boolean toldMissing;

  private final Path dir;
  private final Replication replication;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final List<Node> nodes = new ArrayList<>();
  private final Thread hook = new Thread(this::stopAll, "patroni-cluster-stop");
  private Process etcd;
  private int etcdPort;

  /** One PostgreSQL node and its Patroni agent. */
  public final class Node {
    private final String name;
    private final int pgPort;
    private final int restPort;
    private final TcpRelay toEtcd;
    private Process agent;

    private Node(String name, int pgPort, int restPort, TcpRelay toEtcd) {
      this.name = name;
      this.pgPort = pgPort;
      this.restPort = restPort;
      this.toEtcd = toEtcd;
    }

    /** {@return the member name, {@code node1} to {@code node3}} */
    public String name() {
      return name;
    }

    /** {@return the PostgreSQL port} */
    public int pgPort() {
      return pgPort;
    }

    private Path dataDir() {
      return dir.resolve(name);
    }

    private Path config() {
      return dir.resolve(name + ".yml");
    }

    @Override
    public String toString() {
      return name + " (port " + pgPort + ")";
    }
  }

  private PatroniCluster(Path dir, Replication replication) {
    this.dir = dir;
    this.replication = replication;
  }

  /**
   * Starts etcd and three nodes and waits until one leads and both others replicate from it (in
   * synchronous mode: one of them as the synchronous standby).
   *
   * @throws org.opentest4j.TestAbortedException if a package is missing and {@code CI} is not true
   */
  public static PatroniCluster start(Replication replication) {
    requireInstalled();
    // The cluster is the test's ground, not its subject: a start that finds no leader (seen once
    // in four runs, for the second cluster of a JVM) is torn down and made again from nothing,
    // once,
    // with its logs printed first.
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(replication);
      } catch (RuntimeException | AssertionError e) {
        if (attempt == 2) {
          throw e;
        }
        System.err.println("Patroni cluster start failed, starting a new one: " + e);
      }
    }
  }

  private static PatroniCluster startOnce(Replication replication) {
    try {
      Path dir = Files.createTempDirectory("onceonly-patroni");
      PatroniCluster cluster = new PatroniCluster(dir, replication);
      Runtime.getRuntime().addShutdownHook(cluster.hook);
      try {
        cluster.startAll();
      } catch (RuntimeException | Error e) {
        cluster.printLogTails();
        cluster.close();
        throw e;
      }
      return cluster;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the Patroni cluster", e);
    }
  }

  /** Prints the last lines of etcd's and each node's log, before a failed start deletes them. */
  private void printLogTails() {
    for (String name : List.of("etcd", "node1", "node2", "node3")) {
      try {
        List<String> lines = Files.readAllLines(dir.resolve(name + ".log"));
        System.err.println("--- " + name + ".log, last lines:");
        lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(System.err::println);
      } catch (IOException | RuntimeException e) {
        System.err.println("--- no " + name + ".log: " + e);
      }
    }
  }

  private static void requireInstalled() {
    List<Path> missing =
        List.of(PATRONI, ETCD, PG_BIN.resolve("postgres"), PG_BIN.resolve("pg_rewind")).stream()
            .filter(p -> !Files.isExecutable(p))
            .toList();
    if (missing.isEmpty()) {
      return;
    }
    String why =
        "Failover tests skipped: no "
            + missing.stream().map(Path::toString).collect(Collectors.joining(", "))
            + " (install Debian's patroni, etcd-server and postgresql-15 packages to run them)";
    if ("true".equals(System.getenv("CI"))) {
      throw new IllegalStateException(why + "; CI must run them");
    }
    synchronized (PatroniCluster.class) {
      if (!toldMissing) {
        toldMissing = true;
        System.err.println(why);
      }
    }
    Assumptions.abort(why);
  }

  private void startAll() throws IOException {
    etcdPort = freePort();
    int peerPort = freePort();
    etcd =
        new ProcessBuilder(
                ETCD.toString(),
                "--name=e1",
                "--data-dir=" + dir.resolve("etcd"),
                "--listen-client-urls=http://127.0.0.1:" + etcdPort,
                "--advertise-client-urls=http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls=http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls=http://127.0.0.1:" + peerPort,
                "--initial-cluster=e1=http://127.0.0.1:" + peerPort)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("etcd.log").toFile())
            .start();
    for (int i = 1; i <= 3; i++) {
      Node node = new Node("node" + i, freePort(), freePort(), TcpRelay.to(etcdPort));
      Files.writeString(node.config(), yaml(node));
      nodes.add(node);
    }
    giveToPostgresUser();
    for (Node node : nodes) {
      startAgent(node);
      if (node == nodes.get(0)) {
        awaitLeader(); // the first node bootstraps; the others copy it
      }
    }
    awaitHealthy();
    try (Connection c = connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE app");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the application database", e);
    }
  }

  private String yaml(Node node) {
    boolean sync = replication == Replication.SYNCHRONOUS;
    return String.join(
        "\n",
        "scope: onceonly",
        "name: " + node.name,
        "log: {level: INFO}",
        "restapi:",
        "  listen: 127.0.0.1:" + node.restPort,
        "  connect_address: 127.0.0.1:" + node.restPort,
        "etcd3:",
        "  host: 127.0.0.1:" + node.toEtcd.port(),
        "  use_proxies: true",
        "bootstrap:",
        "  dcs:",
        "    ttl: 10",
        "    loop_wait: 1",
        "    retry_timeout: 3",
        "    maximum_lag_on_failover: 1048576",
        "    synchronous_mode: " + sync,
        "    postgresql:",
        "      use_pg_rewind: true",
        "      parameters:",
        "        synchronous_commit: 'on'",
        "        fsync: 'on'",
        "        wal_log_hints: 'on'",
        "        max_connections: 100",
        "        wal_keep_size: 128MB",
        "  initdb: [{encoding: UTF8}, {auth: trust}]",
        "  pg_hba:",
        "  - host replication replicator 127.0.0.1/32 trust",
        "  - host all all 127.0.0.1/32 trust",
        "  - local all all trust",
        "postgresql:",
        "  listen: 127.0.0.1:" + node.pgPort,
        "  connect_address: 127.0.0.1:" + node.pgPort,
        "  data_dir: " + node.dataDir(),
        "  bin_dir: " + PG_BIN,
        "  pgpass: " + dir.resolve(node.name + ".pgpass"),
        "  authentication:",
        "    replication: {username: replicator, password: rep}",
        "    superuser: {username: postgres, password: " + SUPERUSER_PASSWORD + "}",
        "    rewind: {username: rewinder, password: rw}",
        "  parameters:",
        "    unix_socket_directories: '" + dir + "'",
        "");
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Under root, hands the folder to {@code postgres}: PostgreSQL refuses to run as root. */
  private void giveToPostgresUser() throws IOException {
    if (root()) {
      run("chown", "-R", "postgres:postgres", dir.toString());
    }
  }

  private void startAgent(Node node) throws IOException {
    List<String> command = new ArrayList<>();
    if (root()) {
      command.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"));
    }
    command.add(PATRONI.toString());
    command.add(node.config().toString());
    node.agent =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(dir.resolve(node.name + ".log").toFile()))
            .start();
  }

  /** {@return the node holding the leader lock now, if one does} */
  public Optional<Node> leader() {
    for (Node node : nodes) {
      if (node.agent != null && node.agent.isAlive() && status(node, "/leader") == 200) {
        return Optional.of(node);
      }
    }
    return Optional.empty();
  }

  /** Waits for a leader whose PostgreSQL takes writes, and returns it. */
  public Node awaitLeader() {
    Node[] found = new Node[1];
    Eventually.await(
        READY,
        "a Patroni leader (logs in " + dir + ")",
        () -> {
          failIfEtcdDied();
          found[0] = leader().orElse(null);
          return found[0] != null;
        });
    return found[0];
  }

  /**
   * Waits until every node runs and each replica streams from the leader; in synchronous mode one
   * of them must be the synchronous standby.
   */
  public void awaitHealthy() {
    Eventually.await(
        READY,
        "three members running, " + replication + " (logs in " + dir + ")",
        () -> {
          failIfEtcdDied();
          JsonNode members = cluster().path("members");
          int running = 0;
          boolean syncStandby = false;
          for (JsonNode m : members) {
            if ("running".equals(m.path("state").asText())
                || "streaming".equals(m.path("state").asText())) {
              running++;
            }
            syncStandby |= "sync_standby".equals(m.path("role").asText());
          }
          return running == 3
              && (replication == Replication.ASYNCHRONOUS || syncStandby)
              && leader().isPresent();
        });
  }

  /** {@return Patroni's view of the cluster ({@code GET /cluster}), or an empty object} */
  public JsonNode cluster() {
    for (Node node : nodes) {
      if (node.agent == null || !node.agent.isAlive()) {
        continue;
      }
      try {
        HttpResponse<String> r =
            http.send(get(node, "/cluster"), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return json.readTree(r.body());
        }
      } catch (IOException e) {
        // that agent is not answering: ask the next
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    return json.createObjectNode();
  }

  private int status(Node node, String path) {
    try {
      return http.send(get(node, path), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static HttpRequest get(Node node, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.restPort + path))
        .timeout(Duration.ofSeconds(2))
        .build();
  }

  private void failIfEtcdDied() {
    if (!etcd.isAlive()) {
      throw new IllegalStateException("etcd exited; see " + dir.resolve("etcd.log"));
    }
  }

  /**
   * Kills {@code node} as a machine dies: SIGKILL to its PostgreSQL (the postmaster and every
   * process under it) and to its Patroni agent, at once. The leader lock then expires after the
   * {@code ttl} (10 s) and a replica is promoted.
   */
  public void kill(Node node) {
    List<ProcessHandle> victims = new ArrayList<>();
    postmaster(node)
        .ifPresent(
            pm -> {
              victims.add(pm);
              pm.descendants().forEach(victims::add);
            });
    ProcessHandle agent = node.agent.toHandle();
    victims.add(agent);
    agent.descendants().forEach(victims::add);
    victims.forEach(ProcessHandle::destroyForcibly); // SIGKILL
    try {
      node.agent.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Eventually.await(
        Duration.ofSeconds(30),
        node + " dead",
        () -> victims.stream().noneMatch(ProcessHandle::isAlive));
  }

  /** Starts the agent of a killed node again; it rewinds its data and rejoins as a replica. */
  public void restart(Node node) {
    try {
      startAgent(node);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restart " + node, e);
    }
  }

  /**
   * Stops (SIGSTOP) the WAL senders of {@code leader}, so that what it commits from now on reaches
   * no standby (stopping the receivers would not do: what the kernel already took in on their side
   * still reaches them): in synchronous mode commits then wait, in asynchronous mode they are
   * answered and not copied. Killing the leader ends them.
   */
  public void pauseReplication(Node leader) {
    postmaster(leader)
        .ifPresent(
            pm ->
                pm.children()
                    .filter(p -> commandLine(p).contains("walsender"))
                    .forEach(
                        p -> {
                          try {
                            run("kill", "-STOP", Long.toString(p.pid()));
                          } catch (IOException | IllegalStateException e) {
                            // it ended meanwhile
                          }
                        }));
  }

  private static String commandLine(ProcessHandle p) {
    try {
      return Files.readString(Path.of("/proc/" + p.pid() + "/cmdline"));
    } catch (IOException e) {
      return "";
    }
  }

  /** Cuts {@code node}'s agent off etcd: its connections are reset and new ones refused. */
  public void partitionFromEtcd(Node node) {
    node.toEtcd.cut();
  }

  /** Lets {@code node}'s agent reach etcd again. */
  public void heal(Node node) {
    node.toEtcd.heal();
  }

  /** {@return whether {@code node}'s agent is alive and holds the leader lock, as it sees it} */
  public boolean leads(Node node) {
    return node.agent != null && node.agent.isAlive() && status(node, "/leader") == 200;
  }

  /**
   * Opens a connection to {@code node}'s own {@code database} as the superuser, whatever its role
   * (a standby answers reads).
   *
   * @param node the node
   * @param database the database
   * @return the connection
   * @throws SQLException if the node does not answer
   */
  public Connection connect(Node node, String database) throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:"
            + node.pgPort
            + "/"
            + database
            + "?connectTimeout=2&socketTimeout=10",
        "postgres",
        SUPERUSER_PASSWORD);
  }

  /** {@return whether {@code node}'s PostgreSQL takes writes now (it is a primary and answers)} */
  public boolean takesWrites(Node node) {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:"
                    + node.pgPort
                    + "/postgres?connectTimeout=2&socketTimeout=5",
                "postgres",
                SUPERUSER_PASSWORD);
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
      rs.next();
      return !rs.getBoolean(1);
    } catch (SQLException e) {
      return false;
    }
  }

  private Optional<ProcessHandle> postmaster(Node node) {
    try {
      Path pid = node.dataDir().resolve("postmaster.pid");
      if (!Files.exists(pid)) {
        return Optional.empty();
      }
      return ProcessHandle.of(Long.parseLong(Files.readAllLines(pid).get(0).trim()));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** {@return the nodes} */
  public List<Node> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * Creates an empty database on the primary, for a test of its own on a shared cluster ({@link
   * SharedPatroniCluster}).
   *
   * @param database a new name, letters, digits and underscores
   * @return the name
   * @throws SQLException if the primary refuses it
   */
  public String createDatabase(String database) throws SQLException {
    if (!database.matches("[a-z][a-z0-9_]*")) {
      throw new IllegalArgumentException("database must match [a-z][a-z0-9_]*: " + database);
    }
    try (Connection c = connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    }
    return database;
  }

  /**
   * Fails the cluster over as an operator does, {@code patronictl -c <node's yml> switchover
   * --force}: the leader hands over to its synchronous standby and rejoins as a standby. Patroni
   * refuses a switchover while the standby still catches up after the last one, and {@code
   * patronictl} then prints {@code Switchover failed} and exits 0; so the command, a shell line,
   * runs it again (up to 60 times, a second apart) until it prints {@code Successfully switched
   * over}, and exits 1 if it never does. A trigger that returned without a switchover would let the
   * child's waiting transaction commit, and a negative control go uncaught (a run with two
   * back-to-back switchovers reported {@code duplicates=0} so).
   *
   * @return the shell command line, for a tool that runs it itself with {@code sh -c}
   */
  public String switchoverCommand() {
    String patronictl = PATRONICTL + " -c '" + nodes.get(0).config() + "' switchover --force 2>&1";
    return "for i in $(seq 60); do out=$("
        + patronictl
        + "); echo \"$out\" >&2; case \"$out\" in *'Successfully switched over'*) exit 0;; esac;"
        + " sleep 1; done; exit 1";
  }

  /**
   * Runs {@link #switchoverCommand} and waits until a node other than the old leader leads and
   * takes writes.
   */
  public void switchover() {
    Node old = awaitLeader();
    try {
      run("sh", "-c", switchoverCommand());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run patronictl", e);
    }
    Eventually.await(
        READY,
        "a new leader after the switchover from " + old,
        () -> leader().filter(n -> n != old && takesWrites(n)).isPresent());
  }

  /**
   * Returns the application's URL for {@code database}: every node, {@code
   * targetServerType=primary}, as an application behind a failover-aware client connects.
   */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://"
        + nodes.stream().map(n -> "127.0.0.1:" + n.pgPort).collect(Collectors.joining(","))
        + "/"
        + database
        + "?targetServerType=primary&connectTimeout=2&socketTimeout=30&loginTimeout=5";
  }

  /** {@return the superuser's connection properties, {@code user} and {@code password}} */
  public static Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("password", SUPERUSER_PASSWORD);
    return p;
  }

  /** Opens a connection to the primary's {@code database} as the superuser. */
  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), "postgres", SUPERUSER_PASSWORD);
  }

  /** Returns a HikariCP pool on the primary's {@code database}; the caller closes it. */
  public HikariDataSource pool(String database, int size) {
    return pool(jdbcUrl(database), "patroni-" + database, size);
  }

  /**
   * Returns a HikariCP pool on {@code jdbcUrl} (from {@link #jdbcUrl}) as the superuser, for a
   * child JVM that has the URL but not the cluster; the caller closes it.
   *
   * @param jdbcUrl the cluster's multi-host URL
   * @param name the pool's name, for its threads and logs
   * @param size the most connections it holds
   * @return the pool
   */
  public static HikariDataSource pool(String jdbcUrl, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername("postgres");
    config.setPassword(SUPERUSER_PASSWORD);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(2_000);
    config.setInitializationFailTimeout(-1);
    config.setPoolName(name);
    return new HikariDataSource(config);
  }

  /** {@return where the logs and data are} */
  public Path dir() {
    return dir;
  }

  @Override
  public void close() {
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs now
    }
  }

  private synchronized void stopAll() {
    for (Node node : nodes) {
      if (node.agent != null && node.agent.isAlive()) {
        kill(node);
      }
      postmaster(node).ifPresent(ProcessHandle::destroyForcibly);
      node.toEtcd.close();
    }
    if (etcd != null) {
      etcd.destroyForcibly();
    }
    if (Boolean.getBoolean("onceonly.failover.keep")) {
      System.err.println("Patroni cluster kept in " + dir);
      return;
    }
    try (var paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // the temporary folder is the system's to clean then
    }
  }

  private static void run(String... command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
