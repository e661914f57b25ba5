package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.maintenance.Audit;
import dev.onceonly.maintenance.Audit.Kind;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The auditor ({@code Maintenance.audit} and {@code onceonly verify}) on a store where the
 * application's table and OnceOnly's disagree in every way it looks for, planted two days ago: a
 * duplicate effect, a receipt without its effect, an effect without a receipt, a forgotten intent,
 * and a message and an external-effect claim whose leases ran out. It finds each, exactly those,
 * exits 1, and reports clean on the database the demo leaves and on the same store once repaired.
 * Runs on a SQLite file and on a schema of the embedded PostgreSQL server.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class VerifyContract {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant THEN = Instant.now().minus(Duration.ofDays(2));
  private static final String EFFECTS = "SELECT order_id, COUNT(*) FROM charges GROUP BY order_id";

  @Parameter ContractDatabases.Factory kind;

  @TempDir Path dir;

  private ContractDatabase db;

  @BeforeEach
  void createDatabase() {
    db = kind.create(dir);
  }

  @AfterEach
  void closePools() throws Exception {
    if (db instanceof AutoCloseable pools) {
      pools.close();
    }
  }

  /** The application's charges and OnceOnly's rows, with every kind of disagreement planted. */
  private void plant() throws SQLException {
    db.exec("CREATE TABLE charges (order_id VARCHAR(64) NOT NULL, cents BIGINT NOT NULL)");
    MutableClock clock = new MutableClock(THEN);
    try (OnceOnly once = db.open(clock)) {
      for (String order : List.of("o-1", "o-2", "o-3")) {
        charge(once, order, true);
      }
      charge(once, "o-4", false); // receipt, effect lost
      once.intents().register(IntentKey.of("shop", "o-9"), "charge", Map.of("order", "o-9"));
      once.queue().send("mail", "m-1", Map.of("to", "a"));
      once.queue().receive("mail", 1, Duration.ofMinutes(1)); // the holder died
      ClaimOutcome claim =
          once.externalEffects()
              .claim(IntentKey.of("shop", "pay-1"), "pay", Map.of("c", 1), Duration.ofMinutes(1));
      assertThat(claim).isInstanceOf(ClaimOutcome.Claimed.class);
    }
    db.exec(
        "INSERT INTO charges (order_id, cents) VALUES ('o-3', 100)", // a duplicate
        "INSERT INTO charges (order_id, cents) VALUES ('o-5', 100)"); // no receipt
  }

  private static void charge(OnceOnly once, String order, boolean effect) throws SQLException {
    once.receipts()
        .execute(
            IntentKey.of("shop", order),
            "charge",
            Map.of("order", order),
            Long.class,
            tx -> {
              if (effect) {
                try (PreparedStatement ps =
                    tx.prepareStatement("INSERT INTO charges (order_id, cents) VALUES (?, 100)")) {
                  ps.setString(1, order);
                  ps.executeUpdate();
                }
              }
              return 100L;
            });
  }

  private String[] verify(String... args) {
    return Stream.concat(
            Stream.concat(Stream.of("verify"), Stream.of(args)),
            Stream.of(CommandsContract.target(db)))
        .toArray(String[]::new);
  }

  @Test
  void theApiFindsEachPlantedDisagreementAndNothingElse() throws Exception {
    plant();
    Audit.Report r;
    try (OnceOnly once = db.open(new MutableClock(Instant.now()))) {
      r =
          once.maintenance()
              .audit(new Audit.Rules("charge", EFFECTS, Duration.ofHours(1), Duration.ZERO));
    }
    assertThat(r.clean()).isFalse();
    assertThat(r.effectKeys()).isEqualTo(4); // o-1, o-2, o-3, o-5
    assertThat(r.receipts()).isEqualTo(4); // o-1 .. o-4
    assertThat(r.findings())
        .extracting(Audit.Finding::kind, Audit.Finding::where, Audit.Finding::key)
        .containsExactlyInAnyOrder(
            tuple(Kind.DUPLICATE_EFFECT, "", "o-3"),
            tuple(Kind.EFFECT_WITHOUT_RECEIPT, "", "o-5"),
            tuple(Kind.RECEIPT_WITHOUT_EFFECT, "", "o-4"),
            tuple(Kind.FORGOTTEN_INTENT, "shop", "o-9"),
            tuple(Kind.STALE_LEASE, "mail", "m-1"),
            tuple(Kind.STALE_LEASE, "shop", "pay-1"));
    assertThat(r.count(Kind.STALE_LEASE)).isEqualTo(2);
    assertThat(r.total()).isEqualTo(6);
    assertThat(r.findings().get(0).detail()).isNotBlank();
  }

  @Test
  void boundsDecideWhatIsOldEnoughToReport() throws Exception {
    plant();
    try (OnceOnly once = db.open(new MutableClock(THEN.plus(Duration.ofMinutes(30))))) {
      Audit.Report r =
          once.maintenance()
              .audit(Audit.Rules.storeOnly(Duration.ofHours(1), Duration.ofMinutes(28)));
      assertThat(r.count(Kind.FORGOTTEN_INTENT)).as("registered 30 minutes ago").isZero();
      assertThat(r.count(Kind.STALE_LEASE)).as("ran out 29 minutes ago, more than 28").isEqualTo(2);
      Audit.Report lenient =
          once.maintenance()
              .audit(Audit.Rules.storeOnly(Duration.ofMinutes(10), Duration.ofHours(1)));
      assertThat(lenient.count(Kind.FORGOTTEN_INTENT)).isEqualTo(1);
      assertThat(lenient.count(Kind.STALE_LEASE)).isZero();
      assertThat(lenient.effectKeys()).isZero();
    }
  }

  @Test
  void verifyExitsOneOnFindingsAndListsThemAsJson() throws Exception {
    plant();
    CliRun run = CliRun.of(verify("--operation", "charge", "--effects-query", EFFECTS, "--json"));
    assertThat(run.status()).as("%s", run).isEqualTo(1);
    assertThat(run.err()).isEmpty();
    JsonNode doc = JSON.readTree(run.out());
    assertThat(doc.get("clean").asBoolean()).isFalse();
    assertThat(doc.get("counts").get("DUPLICATE_EFFECT").asLong()).isEqualTo(1);
    assertThat(doc.get("counts").get("RECEIPT_WITHOUT_EFFECT").asLong()).isEqualTo(1);
    assertThat(doc.get("counts").get("EFFECT_WITHOUT_RECEIPT").asLong()).isEqualTo(1);
    assertThat(doc.get("counts").get("FORGOTTEN_INTENT").asLong()).isEqualTo(1);
    assertThat(doc.get("counts").get("STALE_LEASE").asLong()).isEqualTo(2);
    List<String> found = new ArrayList<>();
    doc.get("findings")
        .forEach(f -> found.add(f.get("finding").asText() + " " + f.get("key").asText()));
    assertThat(found)
        .contains("DUPLICATE_EFFECT o-3", "RECEIPT_WITHOUT_EFFECT o-4", "STALE_LEASE m-1");

    CliRun text = CliRun.of(verify("--operation", "charge", "--effects-query", EFFECTS));
    assertThat(text.status()).isEqualTo(1);
    assertThat(text.out()).contains("DUPLICATE_EFFECT: 1").contains("o-3");
    assertThat(text.lastLine()).isEqualTo("verify: 6 finding(s)");
  }

  @Test
  void onceRepairedTheSameStoreIsClean() throws Exception {
    plant();
    db.exec(
        "DELETE FROM charges WHERE order_id IN ('o-3', 'o-5')",
        "INSERT INTO charges (order_id, cents) VALUES ('o-3', 100)",
        "INSERT INTO charges (order_id, cents) VALUES ('o-4', 100)");
    try (OnceOnly once = db.open(new MutableClock(Instant.now()))) {
      charge(once, "o-9", true); // the forgotten intent done at last
      once.queue().withdraw("mail", "m-1");
      once.externalEffects().unknown(10); // moves the expired claim to UNKNOWN
    }
    CliRun run = CliRun.of(verify("--operation", "charge", "--effects-query", EFFECTS));
    assertThat(run.status()).as("%s", run).isZero();
    assertThat(run.lastLine()).isEqualTo("verify: OK");
  }

  @Test
  void theDemosDatabaseIsClean() throws Exception {
    String[] demo =
        Stream.concat(Stream.of("demo", "--jobs", "50"), Stream.of(CommandsContract.target(db)))
            .toArray(String[]::new);
    CliRun ran = CliRun.of(demo);
    assertThat(ran.status()).as("%s", ran).isZero();

    CliRun run =
        CliRun.of(
            verify(
                "--operation",
                "make_report",
                "--effects-query",
                "SELECT scope, job_id, COUNT(*) FROM reports GROUP BY scope, job_id",
                "--json"));
    assertThat(run.status()).as("%s", run).isZero();
    JsonNode doc = JSON.readTree(run.out());
    assertThat(doc.get("clean").asBoolean()).isTrue();
    assertThat(doc.get("effectKeys").asLong()).isEqualTo(50);
    assertThat(doc.get("receipts").asLong()).isEqualTo(50);
  }

  @Test
  void badRulesAreUsageErrors() throws Exception {
    plant();
    CliRun half = CliRun.of(verify("--operation", "charge"));
    assertThat(half.status()).isEqualTo(2);
    assertThat(half.err()).contains("give both --operation and --effects-query");
    CliRun columns =
        CliRun.of(
            verify("--operation", "charge", "--effects-query", "SELECT order_id FROM charges"));
    assertThat(columns.status()).isEqualTo(2);
    assertThat(columns.err()).contains("must return (key, count) or (scope, key, count), not 1");
    CliRun broken =
        CliRun.of(
            verify("--operation", "charge", "--effects-query", "SELECT nothing FROM nowhere"));
    assertThat(broken.status()).isEqualTo(2);
    assertThat(broken.err()).contains("effectsQuery failed");
    assertThatThrownBy(() -> new Audit.Rules("charge", null, Duration.ofHours(1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("operation and effectsQuery go together: give both or neither");
    assertThatThrownBy(() -> Audit.Rules.storeOnly(Duration.ZERO, Duration.ZERO))
        .hasMessage("pendingBound must be > 0: PT0S");
  }
}
