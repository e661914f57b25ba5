package dev.onceonly.redis;

import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.testing.ChildArgs;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.RedisClient;

/**
 * A report worker on a Redis stream in a process of its own, for a test that kills it: consumer
 * {@code child} applies {@code normal} entries (default 5), then stops inside the next effect,
 * after inserting its report row and before the commit, and prints {@code effect key=<job>}.
 *
 * <p>Arguments, as {@code name=value}: {@code file} (the database), {@code port} (Redis), {@code
 * stream}, {@code normal}. It prints {@code settled id=<entry> result=<result>} for each entry.
 */
public final class RedisWorkerMain {
  private RedisWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    int normal = Integer.parseInt(args.get("normal", "5"));
    AtomicInteger effects = new AtomicInteger();
    CountDownLatch never = new CountDownLatch(1);
    RedisWorker.StreamEffect<Report> stalling =
        (c, m) -> {
          Report report = RedisReports.EFFECT.apply(c, m);
          if (effects.incrementAndGet() > normal) {
            print("effect key=" + m.key().key());
            never.await(); // inside the write transaction: the row is inserted, not committed
          }
          return report;
        };
    try (RedisClient client =
            RedisClient.create("127.0.0.1", Integer.parseInt(args.required("port")));
        OnceOnly once = ReportPipeline.open(Path.of(args.required("file")))) {
      RedisStream stream = RedisStream.builder(client, args.required("stream")).build();
      RedisWorker.builder(stream, once, Report.class, stalling)
          .consumer("child")
          .batchSize(10)
          .listener(
              new RedisWorker.Listener() {
                @Override
                public void settled(String id, RedisWorker.Result result, String detail) {
                  print("settled id=" + id + " result=" + result);
                }
              })
          .build()
          .start();
      print("ready");
      never.await();
    }
  }

  private static void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
