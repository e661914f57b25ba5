package dev.onceonly.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.jdbc.DefaultJdbcCustomization;
import com.github.kagkarlsson.scheduler.jdbc.JdbcCustomization;
import com.github.kagkarlsson.scheduler.jdbc.MariaDBJdbcCustomization;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.jobs.states.StateName;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.storage.StorageProvider;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.storage.sql.sqlite.SqLiteStorageProvider;
import org.jobrunr.utils.mapper.jackson.JacksonJsonMapper;

/**
 * The peers of {@link WorkerBenchMain}: db-scheduler one-time tasks and JobRunr background jobs,
 * each configured for throughput as its documentation recommends, on the same database as OnceOnly.
 */
final class PeerTargets {
  private PeerTargets() {}

  /** db-scheduler's table for PostgreSQL, from its documentation. */
  static final String[] DB_SCHEDULER_POSTGRES = {
    "CREATE TABLE scheduled_tasks (task_name TEXT NOT NULL, task_instance TEXT NOT NULL,"
        + " task_data BYTEA, execution_time TIMESTAMP WITH TIME ZONE, picked BOOLEAN NOT NULL,"
        + " picked_by TEXT, last_success TIMESTAMP WITH TIME ZONE,"
        + " last_failure TIMESTAMP WITH TIME ZONE, consecutive_failures INT,"
        + " last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL, priority SMALLINT,"
        + " state TEXT, PRIMARY KEY (task_name, task_instance))",
    "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
    "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
    "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC,"
        + " execution_time ASC)"
  };

  /** db-scheduler's table for SQLite, from its test resources. */
  static final String[] DB_SCHEDULER_SQLITE = {
    "CREATE TABLE scheduled_tasks (task_name VARCHAR(100), task_instance VARCHAR(100),"
        + " task_data BLOB, execution_time TIMESTAMP, picked BIT, picked_by VARCHAR(50),"
        + " last_success TIMESTAMP, last_failure TIMESTAMP, consecutive_failures INT,"
        + " last_heartbeat TIMESTAMP, version BIGINT, priority SMALLINT, state TEXT,"
        + " PRIMARY KEY (task_name, task_instance))",
    "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
    "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
    "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC,"
        + " execution_time ASC)"
  };

  /**
   * db-scheduler's table for MySQL and MariaDB, from its documentation: {@code TIMESTAMP(6)}
   * columns, which the scheduler fills in UTC ({@link MariaDBJdbcCustomization} with {@code
   * persistTimestampInUTC}).
   */
  static final String[] DB_SCHEDULER_MARIADB = {
    "CREATE TABLE scheduled_tasks (task_name VARCHAR(100) NOT NULL,"
        + " task_instance VARCHAR(100) NOT NULL, task_data BLOB,"
        + " execution_time TIMESTAMP(6) NOT NULL, picked BOOLEAN NOT NULL,"
        + " picked_by VARCHAR(50), last_success TIMESTAMP(6) NULL,"
        + " last_failure TIMESTAMP(6) NULL, consecutive_failures INT,"
        + " last_heartbeat TIMESTAMP(6) NULL, version BIGINT NOT NULL, priority SMALLINT,"
        + " state TEXT, PRIMARY KEY (task_name, task_instance))",
    "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
    "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
    "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC,"
        + " execution_time ASC)"
  };

  /**
   * db-scheduler 16: {@code threads(W)}, a 100 ms polling interval, immediate execution enabled; on
   * PostgreSQL the {@code SELECT ... FOR UPDATE SKIP LOCKED} strategy its README recommends there
   * ({@code pollUsingLockAndFetch(0.5, 1.0)}), on SQLite (no {@code SKIP LOCKED}) and on MariaDB
   * (its MariaDB dialect refuses lock-and-fetch in 16.7.1: {@code supportsGenericLockAndFetch()} is
   * false) its default, fetch-and-lock-on-execute with the default batch limits (0.5, 3.0). Each
   * task writes its row through the same pool in auto-commit; db-scheduler then deletes the
   * execution in a transaction of its own.
   */
  static final class DbSchedulerTarget implements WorkerBenchTarget {
    private final WorkerBenchStore store;
    private final DataSource pool;
    private final int workers;
    private final OneTimeTask<Void> task;
    private final SchedulerClient client;
    private volatile Sink sink;
    private Scheduler scheduler;

    DbSchedulerTarget(WorkerBenchStore store, int workers) throws SQLException {
      this.store = store;
      this.workers = workers;
      this.pool = store.pool(workers + 8);
      try (Connection c = pool.getConnection()) {
        BenchDb.exec(
            c,
            store.kind.sqlite()
                ? DB_SCHEDULER_SQLITE
                : store.kind == WorkerBenchStore.Kind.MARIADB
                    ? DB_SCHEDULER_MARIADB
                    : DB_SCHEDULER_POSTGRES);
      }
      this.task =
          Tasks.oneTime("bench-job")
              .execute(
                  (instance, context) -> {
                    Sink s = sink;
                    String key = instance.getId();
                    s.started(key);
                    try {
                      WorkerBenchStore.insertDone(pool, key);
                      s.done();
                    } catch (SQLException | RuntimeException e) {
                      s.failed(e);
                      throw new IllegalStateException(e);
                    }
                  });
      SchedulerClient.Builder b = SchedulerClient.Builder.create(pool, task);
      JdbcCustomization dialect = dialect(store);
      if (dialect != null) {
        b.jdbcCustomization(dialect);
      }
      this.client = b.build();
    }

    @Override
    public void prefill(int n) {
      List<TaskInstance<?>> chunk = new ArrayList<>(1000);
      Instant now = Instant.now();
      for (int i = 0; i < n; i++) {
        chunk.add(task.instance("j" + i));
        if (chunk.size() == 1000 || i == n - 1) {
          client.scheduleBatch(chunk, now);
          chunk.clear();
        }
      }
    }

    @Override
    public void send(String key) {
      // Through the running scheduler when there is one, so that immediate execution sees it.
      SchedulerClient c = scheduler != null ? scheduler : client;
      if (!c.schedule(
          task.instance(key), Instant.now(), SchedulerClient.ScheduleOptions.defaultOptions())) {
        throw new IllegalStateException("db-scheduler refused " + key);
      }
    }

    @Override
    public void start(Sink s) {
      sink = s;
      SchedulerBuilder b =
          Scheduler.create(pool, task)
              .threads(workers)
              .pollingInterval(Duration.ofMillis(100))
              .enableImmediateExecution();
      JdbcCustomization dialect = dialect(store);
      if (dialect != null) {
        b.jdbcCustomization(dialect);
      } else {
        b.pollUsingLockAndFetch(0.5, 1.0);
      }
      scheduler = b.build();
      scheduler.start();
    }

    /**
     * The dialect given to db-scheduler: none on PostgreSQL (it detects its own), SQLite's LIMIT,
     * MariaDB's with timestamps in UTC.
     */
    private static JdbcCustomization dialect(WorkerBenchStore store) {
      return switch (store.kind) {
        case SQLITE_FULL, SQLITE_NORMAL -> new SqliteLimit();
        case MARIADB -> new MariaDBJdbcCustomization(true);
        case POSTGRES -> null;
      };
    }

    @Override
    public void stop() {
      if (scheduler != null) {
        scheduler.stop();
        scheduler = null;
      }
    }

    @Override
    public long queued() throws SQLException {
      return store.count("SELECT COUNT(*) FROM scheduled_tasks");
    }
  }

  /**
   * db-scheduler 16.7.1 has no SQLite dialect: its generic one ends the due query with {@code
   * OFFSET 0 ROWS FETCH FIRST n ROWS ONLY}, which SQLite refuses. Its later releases add one that
   * is the generic dialect with timestamps in UTC and a {@code LIMIT n}; this is the same.
   */
  static final class SqliteLimit extends DefaultJdbcCustomization {
    SqliteLimit() {
      super(true);
    }

    @Override
    public String getName() {
      return "SQLite";
    }

    @Override
    public String getQueryLimitPart(int limit) {
      return " LIMIT " + limit;
    }
  }

  /**
   * JobRunr 7 (open-source edition): its SQLite or PostgreSQL storage provider on the same pool, a
   * {@link BackgroundJobServer} with {@code andWorkerCount(W)} and a 5 s poll interval, the
   * smallest it accepts for SQL storage (a busy server also fetches more work as soon as workers
   * run idle). Jobs are enqueued one {@code enqueue} call each; the prefill uses its stream form.
   */
  static final class JobRunrTarget implements WorkerBenchTarget {
    private final StorageProvider storage;
    private final JobScheduler scheduler;
    private final BackgroundJobServer server;
    private boolean started;

    JobRunrTarget(WorkerBenchStore store, int workers) {
      DataSource pool = store.pool(workers + 8);
      JobRunrWork.pool = pool;
      this.storage =
          store.kind.sqlite() ? new SqLiteStorageProvider(pool) : new PostgresStorageProvider(pool);
      this.scheduler =
          JobRunr.configure()
              .useJsonMapper(
                  new JacksonJsonMapper(new ObjectMapper().registerModule(new JavaTimeModule())))
              .useStorageProvider(storage)
              .useBackgroundJobServer(
                  BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration()
                      .andWorkerCount(workers)
                      .andPollInterval(Duration.ofSeconds(5)),
                  false)
              .initialize()
              .getJobScheduler();
      this.server = JobRunr.getBackgroundJobServer();
    }

    @Override
    public void prefill(int n) {
      scheduler.enqueue(IntStream.range(0, n).mapToObj(i -> "j" + i), key -> JobRunrWork.run(key));
    }

    @Override
    public void send(String key) {
      scheduler.enqueue(() -> JobRunrWork.run(key));
    }

    @Override
    public void start(Sink s) {
      JobRunrWork.sink = s;
      server.start();
      started = true;
    }

    @Override
    public void stop() {
      if (started) {
        server.stop();
        started = false;
      }
    }

    @Override
    public long queued() {
      return storage.countJobs(StateName.ENQUEUED) + storage.countJobs(StateName.PROCESSING);
    }

    @Override
    public void close() {
      stop();
      JobRunr.destroy();
      storage.close();
      JobRunrWork.pool = null;
      JobRunrWork.sink = null;
    }
  }
}
