package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.contract.ContractSupport;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Worker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The failed attempts of a message on the dashboard, over a real Jetty on each database: the
 * message page and the dead letter page list them as a table, oldest first, and a hostile error
 * message or class renders as text.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DashboardAttemptErrorsContract extends ContractSupport {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final String HOSTILE =
      "<script>alert('x')</script> \"quoted\" & <img src=x onerror=alert(1)> \u202Eevil\u0007";
  private DashboardServer server;

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** An exception whose class name is ours and whose message is {@link #HOSTILE}. */
  static final class HostileException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HostileException(String message) {
      super(message);
    }
  }

  private QueueResult failOnce(JobQueue queue, String queueName, RuntimeException error) {
    Delivery d = queue.receive(queueName, 1, LEASE).get(0);
    return Worker.handleOnce(
        queue,
        d,
        job -> {
          throw error;
        });
  }

  @Test
  void theMessageAndDeadLetterPagesListTheFailedAttemptsEscaped() throws Exception {
    start();
    JobQueue queue =
        once.queue(
            RetryPolicy.builder()
                .maxAttempts(2)
                .baseDelay(Duration.ZERO)
                .maxDelay(Duration.ZERO)
                .build());
    queue.send("mail", "m-1", Map.of("to", "ana"));
    failOnce(queue, "mail", new IllegalStateException("smtp down"));
    queue.send("reports", "r-1", Map.of("n", 1));
    failOnce(queue, "reports", new IllegalArgumentException("first try"));
    assertThat(failOnce(queue, "reports", new HostileException(HOSTILE)))
        .isInstanceOf(QueueResult.DeadLettered.class);
    reopen();
    server = new DashboardServer(DashboardServlet.builder(once).build());

    HttpResponse<String> message = server.get("/message?queue=mail&key=m-1");
    assertThat(message.statusCode()).isEqualTo(200);
    assertThat(table(message.body()))
        .contains(
            "<td>1</td>",
            "<td>java.lang.IllegalStateException</td>",
            "<pre>smtp down</pre>",
            "<pre>    at " + DashboardAttemptErrorsContract.class.getName(),
            "\n    at ");

    HttpResponse<String> dead = server.get("/dead-letter?queue=reports&key=r-1");
    assertThat(dead.statusCode()).isEqualTo(200);
    String rows = table(dead.body());
    assertThat(rows.indexOf("first try")).isLessThan(rows.indexOf("&lt;script&gt;"));
    assertThat(rows)
        .contains(
            "<td>" + HostileException.class.getName() + "</td>",
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &quot;quoted&quot; &amp;"
                + " &lt;img src=x onerror=alert(1)&gt; \\u{202E}evil\\u{0007}");
    assertThat(dead.body()).doesNotContain("<script", "<img", "\u202E", "\u0007");

    // a message that never failed says so
    once.queue().send("mail", "m-2", Map.of("to", "bo"));
    assertThat(server.get("/message?queue=mail&key=m-2").body())
        .contains("No failed attempt of this message is kept.");
  }

  /** The attempts table of a page, which must be there. */
  private static String table(String page) {
    int start = page.indexOf("<table id=\"attempt-errors\">");
    assertThat(start).as("the attempts table in %s", page).isNotNegative();
    return page.substring(start, page.indexOf("</table>", start));
  }

  @Test
  void aDeletedDeadLetterTakesItsAttemptsOffThePages() throws Exception {
    start();
    JobQueue queue = once.queue(RetryPolicy.builder().maxAttempts(1).build());
    queue.send("reports", "r-1", Map.of("n", 1));
    failOnce(queue, "reports", new IllegalStateException("gone soon"));
    server = new DashboardServer(DashboardServlet.builder(once).build());
    server.act(
        "/dead-letter?queue=reports&key=r-1",
        "/dead-letters/delete",
        Map.of("queue", "reports", "key", "r-1"));
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_attempt_errors")).isZero();
    queue.send("reports", "r-1", Map.of("n", 2));
    assertThat(server.get("/message?queue=reports&key=r-1").body())
        .contains("No failed attempt of this message is kept.")
        .doesNotContain("gone soon");
  }
}
