package dev.onceonly.http;

import static dev.onceonly.http.HttpTestApp.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JSON bodies share a key's stored response only if they are the same value. Numbers are
 * generated where a round trip through a double loses them (integers past 2^53, decimals of more
 * than 17 significant digits, exponents that overflow or underflow, negative zero) and paired; the
 * reference is {@link BigDecimal}: a pair of different values must be refused 422 ({@code
 * key-reused}), and a pair of one value that a double holds exactly must be replayed. Through a
 * real Jetty server, the handler's rows read back from a reopened SQLite file.
 */
class HttpJsonNumbersTest {
  @TempDir Path dir;

  static List<String> numbers() {
    Set<String> out =
        new LinkedHashSet<>(
            List.of(
                "9007199254740992",
                "9007199254740993",
                "9007199254740994",
                "9007199254740995",
                "9007199254740993.0",
                "18014398509481985",
                "1000000000000000000",
                "1000000000000000001",
                "1e18",
                "1E+18",
                "0.3",
                "0.30",
                "0.30000000000000001",
                "0.29999999999999999",
                "0.299999999999999988897769753748434595763683319091796875",
                "3e-1",
                "1.5",
                "1.50",
                "15e-1",
                "100",
                "1e2",
                "1E2",
                "100.0",
                "1e400",
                "1e-400",
                "-0",
                "0",
                "-0.0",
                "0.0",
                "0e5",
                "-0e-3"));
    Random random = new Random(8785);
    BigInteger twoTo53 = BigInteger.TWO.pow(53);
    while (out.size() < 60) {
      switch (random.nextInt(3)) {
        case 0 -> out.add(twoTo53.add(BigInteger.valueOf(random.nextInt(1 << 20))).toString());
        case 1 -> {
          // more than 17 significant digits, next to a double's value
          double d = random.nextDouble() * 1000;
          out.add(new BigDecimal(d).round(new java.math.MathContext(20)).toPlainString());
          out.add(Double.toString(d));
        }
        default -> {
          int exponent = random.nextInt(40) - 20;
          out.add((random.nextInt(9) + 1) + "e" + exponent);
          out.add((random.nextInt(9) + 1) + "0e" + (exponent - 1));
        }
      }
    }
    return new ArrayList<>(out);
  }

  static boolean exactDouble(BigDecimal value) {
    double d = value.doubleValue();
    return Double.isFinite(d) && new BigDecimal(d).compareTo(value) == 0;
  }

  @Test
  void twoBodiesShareAStoredResponseOnlyIfTheyAreTheSameValue() throws Exception {
    List<String> numbers = numbers();
    List<String[]> pairs = new ArrayList<>();
    Random random = new Random(53);
    for (String a : numbers) {
      for (String b : numbers) {
        BigDecimal x = new BigDecimal(a);
        BigDecimal y = new BigDecimal(b);
        boolean sameDouble = x.doubleValue() == y.doubleValue();
        if (!a.equals(b) && (sameDouble || x.compareTo(y) == 0 || random.nextInt(40) == 0)) {
          pairs.add(new String[] {a, b});
        }
      }
    }
    String appDb = "jdbc:sqlite:" + dir.resolve("app.db");
    try (Connection c = DriverManager.getConnection(appDb)) {
      c.createStatement().execute(HttpTestApp.CREATE_TABLE);
    }
    int mustDiffer = 0;
    int mustShare = 0;
    try (OnceOnly once = OnceOnly.openSqlite(dir.resolve("api.db"));
        HttpTestApp app =
            new HttpTestApp(
                HttpTestApp.paymentsRoute(once).build(),
                (id, amount, path) -> insert(appDb, id, amount, path))) {
      int i = 0;
      for (String[] pair : pairs) {
        String key = "pair-" + i++;
        HttpResponse<byte[]> first = app.send(app.post("/payments", key, "alice", body(pair[0])));
        assertThat(first.statusCode()).as(pair[0]).isEqualTo(201);
        HttpResponse<byte[]> second = app.send(app.post("/payments", key, "alice", body(pair[1])));
        BigDecimal x = new BigDecimal(pair[0]);
        BigDecimal y = new BigDecimal(pair[1]);
        String as = pair[0] + " then " + pair[1] + ": " + text(second);
        if (x.compareTo(y) != 0) {
          mustDiffer++;
          assertThat(second.statusCode()).as(as).isEqualTo(422);
          assertThat(text(second)).as(as).contains("key-reused");
        } else if (exactDouble(x) && exactDouble(y)) {
          mustShare++;
          assertThat(second.statusCode()).as(as).isEqualTo(201);
          assertThat(second.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER))
              .as(as)
              .hasValue("true");
        }
      }
    }
    assertThat(mustDiffer).isGreaterThan(50);
    assertThat(mustShare).isGreaterThan(10);
    try (Connection c = DriverManager.getConnection(appDb);
        ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM app_payments")) {
      rs.next();
      assertThat(rs.getLong(1)).as("the handler ran once per key").isEqualTo(pairs.size());
    }
  }

  static String body(String number) {
    return "{\"currency\":\"EUR\",\"amount\":" + number + "}";
  }

  static void insert(String url, String id, long amount, String path) throws java.sql.SQLException {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO app_payments (payment_id, amount, path) VALUES (?,?,?)")) {
      ps.setString(1, id);
      ps.setLong(2, amount);
      ps.setString(3, path);
      ps.executeUpdate();
    }
  }
}
