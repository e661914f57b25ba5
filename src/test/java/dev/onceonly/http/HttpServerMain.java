package dev.onceonly.http;

import dev.onceonly.OnceOnly;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * A child process for {@link HttpCrashTest}: the payments API of {@link HttpTestApp} behind the
 * filter (plain mode) on a SQLite file, with a route lease of {@code args[1]} milliseconds. Prints
 * {@code PORT <n>} when it serves, and {@code IN_HANDLER} once a request with {@code X-Gate: hang}
 * has written its row and parked in its handler, where it stays until the process is killed.
 */
public final class HttpServerMain {
  private HttpServerMain() {}

  /**
   * Runs the server until killed.
   *
   * @param args the SQLite file and the lease in milliseconds
   * @throws Exception if it cannot start
   */
  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
    String url = "jdbc:sqlite:" + file;
    try (Connection c = DriverManager.getConnection(url)) {
      c.createStatement()
          .execute(HttpTestApp.CREATE_TABLE.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"));
    }
    OnceOnly once = OnceOnly.builder().sqlite(file).build();
    IdempotencyFilter filter =
        IdempotencyFilter.builder(once)
            .route(
                Route.builder("payments").path("/payments").keyRequired(true).lease(lease).build())
            .build();
    HttpTestApp app =
        new HttpTestApp(
            filter,
            (id, amount, path) -> {
              try (Connection c = DriverManager.getConnection(url + "?busy_timeout=10000");
                  PreparedStatement ps =
                      c.prepareStatement(
                          "INSERT INTO "
                              + HttpTestApp.TABLE
                              + " (payment_id, amount, path) VALUES (?, ?, ?)")) {
                ps.setString(1, id);
                ps.setLong(2, amount);
                ps.setString(3, path);
                ps.executeUpdate();
              }
            });
    System.out.println("PORT " + app.port);
    System.out.flush();
    app.awaitEntered("hang");
    System.out.println("IN_HANDLER");
    System.out.flush();
    Thread.currentThread().join(); // until killed
  }
}
