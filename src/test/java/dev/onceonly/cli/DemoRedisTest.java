package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.RedisTransport;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.redis.EmbeddedRedis;
import dev.onceonly.testing.ChildJvm;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * {@code onceonly demo --redis} against a real redis-server, twice on one SQLite file: the jobs
 * travel on a Redis stream, the receipts, intents and rejections stay in the file. The summary line
 * is checked against the rows through a fresh connection, and the stream's group is checked to have
 * nothing pending or undelivered afterwards.
 */
class DemoRedisTest {
  private static final Pattern LINE =
      Pattern.compile(
          "demo: intents=(\\d+) effects=(\\d+) duplicates=(\\d+) repeated=(\\d+) conflicts=(\\d+)"
              + " rejected=(\\d+) pending=(\\d+) (OK|FAILED)");
  private static final int JOBS = 60;
  private static final int WITHHELD = 3; // batch-007, -027, -047: the producer dies before them
  private static final int HOSTILE = 4;

  @TempDir Path dir;

  @Test
  void runsTwiceOverRedisStreamsAndTheSummaryMatchesTheRows() throws Exception {
    Path data = Files.createDirectories(dir.resolve("redis"));
    Path file = dir.resolve("demo.db");
    try (EmbeddedRedis redis = EmbeddedRedis.start(data);
        RedisClient client = redis.client()) {
      String[] demo = {
        "demo",
        "--db",
        file.toString(),
        "--redis",
        "127.0.0.1:" + redis.port(),
        "--jobs",
        String.valueOf(JOBS)
      };

      CliRun first = CliRun.of(demo);
      assertThat(first.status()).as("%s", first).isZero();
      assertThat(first.out())
          .contains("over the Redis stream " + RedisTransport.STREAM)
          .contains("died before the commit: rolled back, delivery abandoned")
          .contains("workshop/batch-000 came back (attempt 2) and is ")
          .contains("reconciler: 3 intents without a receipt, 3 published again")
          .contains("retry with the same key: Repeated ticket 1");
      long[] one = summary(first);
      assertRows(file, one, HOSTILE);
      assertThat(one[3])
          .as("repeated: the two duplicate publishes, the ticket's retry")
          .isEqualTo(3);
      assertSettled(client);

      CliRun second = CliRun.of(demo);
      assertThat(second.status()).as("%s", second).isZero();
      assertThat(second.out())
          .contains("took batch-000, already done: Repeated, acknowledged")
          .contains("request: Repeated ticket 1");
      long[] two = summary(second);
      assertRows(file, two, 2 * HOSTILE);
      assertThat(two[3])
          .as("every published job, both duplicate publishes, both ticket requests")
          .isEqualTo(JOBS - WITHHELD + 2 + 2);
      assertSettled(client);
      assertThat(length(client))
          .as("every entry of both runs: jobs, duplicates, hostile, reconciled")
          .isEqualTo(2 * (JOBS - WITHHELD + 2 + HOSTILE) + WITHHELD);
    }
  }

  @Test
  void anUnreachableRedisOrABadAddressFailsInOneLine() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    Path file = dir.resolve("r.db");
    CliRun refused = CliRun.of("demo", "--db", file.toString(), "--redis", "127.0.0.1:" + closed);
    assertThat(refused.status()).as("%s", refused).isEqualTo(4);
    assertThat(refused.err())
        .startsWith("onceonly: --redis 127.0.0.1:" + closed + ": cannot reach Redis")
        .doesNotContain("\tat ");
    assertThat(refused.err().lines()).hasSize(1);
    assertThat(file).as("nothing written before Redis answered").doesNotExist();

    for (String bad : List.of("localhost", "localhost:0", "localhost:x", ":6379")) {
      CliRun run = CliRun.of("demo", "--db", file.toString(), "--redis", bad);
      assertThat(run.status()).as("%s: %s", bad, run).isEqualTo(4);
      assertThat(run.err())
          .startsWith("onceonly: --redis " + bad + ": expected HOST:PORT")
          .doesNotContain("\tat ");
    }
    assertThat(file).doesNotExist();
  }

  /**
   * What the summary adds to {@code pending} for the stream: an entry not yet delivered, one
   * delivered and not acknowledged, and a dead letter each count, and only while they are there.
   */
  @Test
  void pendingOutsideTheStoreCountsUndeliveredUnacknowledgedAndDeadEntries() throws Exception {
    Path data = Files.createDirectories(dir.resolve("redis"));
    try (EmbeddedRedis redis = EmbeddedRedis.start(data);
        RedisClient client = redis.client();
        OnceOnly once = ReportPipeline.builder().sqlite(dir.resolve("p.db")).build();
        RedisTransport transport = RedisTransport.connect("127.0.0.1:" + redis.port(), once)) {
      String stream = RedisTransport.STREAM;
      assertThat(transport.pendingOutsideStore()).isZero();

      client.sendCommand(Protocol.Command.XADD, stream, "*", "a", "1");
      client.sendCommand(Protocol.Command.XADD, stream, "*", "b", "2");
      assertThat(transport.unsettled()).as("two undelivered").isEqualTo(2);

      client.sendCommand(
          Protocol.Command.XREADGROUP,
          "GROUP",
          "onceonly",
          "c",
          "COUNT",
          "1",
          "STREAMS",
          stream,
          ">");
      assertThat(transport.unsettled()).as("one pending, one undelivered").isEqualTo(2);
      client.sendCommand(Protocol.Command.HSET, stream + ":dead", "workshop/batch-001", "0-1");
      assertThat(transport.pendingOutsideStore()).as("and a dead letter").isEqualTo(3);

      List<?> read =
          (List<?>)
              client.sendCommand(
                  Protocol.Command.XREADGROUP, "GROUP", "onceonly", "c", "STREAMS", stream, "0");
      assertThat(read).isNotEmpty();
      client.sendCommand(
          Protocol.Command.XREADGROUP, "GROUP", "onceonly", "c", "STREAMS", stream, ">");
      assertThat(transport.unsettled()).as("both delivered, not acknowledged").isEqualTo(2);
      List<?> pending =
          (List<?>)
              client.sendCommand(Protocol.Command.XPENDING, stream, "onceonly", "-", "+", "10");
      for (Object row : pending) {
        client.sendCommand(
            Protocol.Command.XACK, stream, "onceonly", RedisTransport.text(((List<?>) row).get(0)));
      }
      assertThat(transport.unsettled()).isZero();
      assertThat(transport.pendingOutsideStore()).as("the dead letter only").isOne();
      client.sendCommand(Protocol.Command.DEL, stream + ":dead");
      assertThat(transport.pendingOutsideStore()).isZero();
    }
  }

  /**
   * On a class path without Jedis (an optional dependency), the demo still runs on the SQL queue,
   * and {@code --redis} stops at once with one line and status 4, writing nothing.
   */
  @Test
  void withoutJedisTheSqlDemoRunsAndRedisFailsInOneLine() {
    Path sqlFile = dir.resolve("sql.db");
    Path redisFile = dir.resolve("redis.db");
    try (ChildJvm sql =
            ChildJvm.startWithout(
                "no-jedis-sql",
                dir,
                "jedis",
                Main.class,
                "demo",
                "--db",
                sqlFile.toString(),
                "--jobs",
                "50");
        ChildJvm redis =
            ChildJvm.startWithout(
                "no-jedis-redis",
                dir,
                "jedis",
                Main.class,
                "demo",
                "--db",
                redisFile.toString(),
                "--redis",
                "127.0.0.1:6379")) {
      assertThat(redis.awaitExit(Duration.ofSeconds(60)))
          .as(redis.diagnostics("exit"))
          .isEqualTo(4);
      assertThat(redis.lines()).isEmpty();
      assertThat(errLines("no-jedis-redis"))
          .containsExactly(
              "onceonly: --redis 127.0.0.1:6379: Jedis is missing (an optional dependency of the"
                  + " library): put redis.clients:jedis on the class path, or run"
                  + " target/onceonly-cli.jar");
      assertThat(redisFile).doesNotExist();
      assertThat(sql.awaitExit(Duration.ofSeconds(60))).as(sql.diagnostics("exit")).isZero();
      List<String> out = sql.lines();
      assertThat(out.get(out.size() - 1))
          .startsWith("demo: intents=51 effects=51 ")
          .endsWith(" OK");
    }
  }

  private List<String> errLines(String name) {
    try {
      return Files.readAllLines(dir.resolve(name + ".err"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static long[] summary(CliRun run) {
    Matcher m = LINE.matcher(run.lastLine());
    assertThat(m.matches()).as("last line of %s", run).isTrue();
    assertThat(m.group(8)).isEqualTo("OK");
    long[] values = new long[7];
    for (int i = 0; i < values.length; i++) {
      values[i] = Long.parseLong(m.group(i + 1));
    }
    return values;
  }

  /** The summary's counts against the rows, through a new connection. */
  private static void assertRows(Path file, long[] summary, long rejections) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath())) {
      long intents = count(c, "SELECT COUNT(*) FROM onceonly_intents");
      long ticketReceipts =
          count(c, "SELECT COUNT(*) FROM onceonly_receipts WHERE operation = 'create_ticket'");
      assertThat(intents).isEqualTo(JOBS);
      assertThat(ticketReceipts).isOne();
      assertThat(summary[0]).as("intents").isEqualTo(intents + ticketReceipts);
      assertThat(count(c, "SELECT COUNT(*) FROM reports")).isEqualTo(JOBS);
      assertThat(count(c, "SELECT COUNT(DISTINCT job_id) FROM reports")).isEqualTo(JOBS);
      assertThat(count(c, "SELECT COUNT(*) FROM tickets")).isOne();
      assertThat(summary[1]).as("effects").isEqualTo(JOBS + 1L);
      assertThat(summary[2]).as("duplicates").isZero();
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(JOBS + 1L);
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_messages"))
          .as("nothing went through the SQL queue")
          .isZero();
      assertThat(summary[6]).as("pending").isZero();
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_rejections")).isEqualTo(rejections);
      assertThat(
              count(
                  c,
                  "SELECT COUNT(*) FROM onceonly_rejections WHERE delivery_id LIKE '"
                      + RedisTransport.STREAM
                      + "/%'"))
          .as("every rejection is keyed by a stream entry")
          .isEqualTo(rejections);
      assertThat(summary[5]).as("rejected").isEqualTo(HOSTILE);
    }
  }

  /** The group has no pending entry, none is left undelivered, and there is no dead letter. */
  private static void assertSettled(RedisClient client) {
    List<?> pending =
        (List<?>)
            client.sendCommand(
                Protocol.Command.XPENDING, RedisTransport.STREAM, "onceonly", "-", "+", "1000");
    assertThat(pending).as("pending entries").isEmpty();
    List<?> groups =
        (List<?>) client.sendCommand(Protocol.Command.XINFO, "GROUPS", RedisTransport.STREAM);
    assertThat(groups).hasSize(1);
    String lastDelivered =
        RedisTransport.text(RedisTransport.fields(groups.get(0)).get("last-delivered-id"));
    List<?> newest =
        (List<?>)
            client.sendCommand(
                Protocol.Command.XREVRANGE, RedisTransport.STREAM, "+", "-", "COUNT", "1");
    assertThat(RedisTransport.text(((List<?>) newest.get(0)).get(0)))
        .as("the newest entry was delivered")
        .isEqualTo(lastDelivered);
    assertThat((Long) client.sendCommand(Protocol.Command.EXISTS, RedisTransport.STREAM + ":dead"))
        .as("dead letters")
        .isZero();
  }

  private static long length(RedisClient client) {
    return (Long) client.sendCommand(Protocol.Command.XLEN, RedisTransport.STREAM);
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
