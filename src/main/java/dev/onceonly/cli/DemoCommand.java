package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.Demo;
import dev.onceonly.cli.demo.RedisTransport;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.Summary;
import dev.onceonly.redis.RedisTransportException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code onceonly demo}: the report workshop and the ticket desk, checked by the rows. */
@Command(
    name = "demo",
    description = {
      "Runs the report workshop (report jobs registered and published, a worker that crashes"
          + " inside its effect, a duplicate publish, a tampered message, the reconciler) and the"
          + " ticket desk (a lost response, its retry, a conflicting intent), then counts the rows.",
      "The last line is machine-checkable and ends in OK only when every intent has exactly one"
          + " effect and nothing is pending; run it again on the same file to see Repeated."
    })
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "FILE",
      defaultValue = "onceonly-demo.db",
      description = "the SQLite file, created if missing and reused (default: ${DEFAULT-VALUE})")
  Path db;

  @Option(
      names = "--jdbc-url",
      paramLabel = "URL",
      description =
          "run on this database instead (PostgreSQL; onceonly-cli.jar contains its driver)")
  String jdbcUrl;

  @Option(
      names = "--redis",
      paramLabel = "HOST:PORT",
      description = "carry the jobs over Redis Streams instead of the SQL job queue")
  String redis;

  @Option(
      names = "--jobs",
      defaultValue = "200",
      description = "report jobs (default: ${DEFAULT-VALUE})")
  int jobs;

  @Option(
      names = "--workers",
      defaultValue = "3",
      description =
          "workers: two threads each on the SQL queue, one consumer each on Redis (default:"
              + " ${DEFAULT-VALUE})")
  int workers;

  @Option(
      names = "--seed",
      defaultValue = "20000",
      description = "random seed of the jobs' samples (default: ${DEFAULT-VALUE})")
  long seed;

  @Override
  public Integer call() throws SQLException {
    Demo.Settings settings;
    if (redis == null) {
      settings =
          new Demo.Settings(jobs, seed, workers, Duration.ofSeconds(2), Duration.ofMillis(500));
    } else {
      checkRedis(redis);
      // A stream takes an entry over after one idle time for all: the crashed worker's too.
      settings =
          new Demo.Settings(jobs, seed, workers, Duration.ofSeconds(1), Duration.ofSeconds(1));
    }
    Target target = new Target();
    target.prefix = "onceonly_";
    if (jdbcUrl != null) {
      target.jdbcUrl = jdbcUrl;
    } else {
      target.db = db;
    }
    PrintWriter w = spec.commandLine().getOut();
    PrintStream out = new PrintStream(new WriterStream(w), true, StandardCharsets.UTF_8);
    out.println("OnceOnly demo on " + target.describe());
    Summary summary;
    try (OnceOnly once = target.openStore(ReportPipeline.builder())) {
      Demo.Rows rows = () -> target.connect(true);
      summary =
          redis == null
              ? Demo.run(once, rows, out, settings)
              : runOnRedis(redis, once, rows, out, settings);
    }
    summary.lines().forEach(out::println);
    out.flush();
    return summary.ok() ? 0 : CliException.FAILED;
  }

  /**
   * Fails with one line unless Jedis is on the class path and a Redis server answers at {@code
   * hostAndPort}; nothing is written before.
   */
  private static void checkRedis(String hostAndPort) {
    try {
      Class.forName("redis.clients.jedis.UnifiedJedis", false, DemoCommand.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "--redis "
              + hostAndPort
              + ": Jedis is missing (an optional dependency of the library): put"
              + " redis.clients:jedis on the class path, or run target/onceonly-cli.jar");
    }
    try {
      RedisTransport.check(hostAndPort);
    } catch (IllegalArgumentException | RedisTransportException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "--redis " + hostAndPort + ": " + Target.firstLine(e.getMessage()));
    }
  }

  private static Summary runOnRedis(
      String hostAndPort, OnceOnly once, Demo.Rows rows, PrintStream out, Demo.Settings settings)
      throws SQLException {
    RedisTransport transport;
    try {
      transport = RedisTransport.connect(hostAndPort, once);
    } catch (RedisTransportException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "--redis " + hostAndPort + ": " + Target.firstLine(e.getMessage()));
    }
    try (transport) {
      return Demo.run(once, transport, rows, out, settings);
    }
  }

  /** Bytes written to a stream, handed on to picocli's writer as UTF-8 text. */
  private static final class WriterStream extends java.io.OutputStream {
    private final Writer writer;
    private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

    WriterStream(Writer writer) {
      this.writer = writer;
    }

    @Override
    public void write(int b) {
      line.write(b);
    }

    @Override
    public void flush() throws java.io.IOException {
      writer.write(line.toString(StandardCharsets.UTF_8));
      line.reset();
      writer.flush();
    }
  }
}
