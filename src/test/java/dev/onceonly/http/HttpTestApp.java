package dev.onceonly.http;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Jetty server with the filter in front of a small payments API whose handler writes one row
 * per payment ({@code app_payments}), and a real {@link HttpClient}.
 *
 * <p>The handler is steered by request headers that are not part of the fingerprint: {@code
 * X-Status} answers that status without writing, {@code X-Big} writes a body of that many bytes,
 * {@code X-Gate} parks the handler (after its row is written) until {@link #open} releases that
 * gate, {@code X-Throw} throws, {@code X-Stream} flushes mid-body, {@code X-Async} (or {@code
 * X-Async-Wrapped}, on the response it was given) answers from an asynchronous context. An
 * authentication filter turns {@code X-User} into the request's principal, as a real authentication
 * layer would.
 */
final class HttpTestApp implements AutoCloseable {
  static final String TABLE = "app_payments";
  static final String CREATE_TABLE =
      "CREATE TABLE "
          + TABLE
          + " (payment_id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL, path VARCHAR(200))";

  /** Where the handler writes its row: the application's own database access. */
  @FunctionalInterface
  interface Rows {
    void insert(String id, long amount, String path) throws SQLException;
  }

  /** Runs the handler's body: plain, or inside the application's own transaction. */
  @FunctionalInterface
  interface Around {
    void run(Body body) throws Exception;

    /** The handler's body. */
    @FunctionalInterface
    interface Body {
      void run() throws Exception;
    }
  }

  private static final Pattern AMOUNT = Pattern.compile("\"amount\"\\s*:\\s*(\\d+)");

  private final Server server;
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
  private final Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();
  final int port;

  HttpTestApp(Filter filter, Rows rows) throws Exception {
    this(filter, rows, body -> body.run());
  }

  HttpTestApp(Filter filter, Rows rows, Around around) throws Exception {
    server = new Server(0);
    ServletContextHandler context = new ServletContextHandler();
    FilterHolder authentication = new FilterHolder(new Authentication());
    authentication.setAsyncSupported(true);
    context.addFilter(authentication, "/*", EnumSet.of(DispatcherType.REQUEST));
    FilterHolder idempotency = new FilterHolder(filter);
    idempotency.setAsyncSupported(true);
    context.addFilter(idempotency, "/*", EnumSet.of(DispatcherType.REQUEST));
    ServletHolder payments = new ServletHolder(new Payments(rows, around));
    payments.setAsyncSupported(true);
    context.addServlet(payments, "/*");
    server.setHandler(context);
    server.start();
    port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /** A filter on {@code once} with one route, {@code payments} at {@code /payments}. */
  static IdempotencyFilter.Builder paymentsRoute(dev.onceonly.OnceOnly once) {
    return IdempotencyFilter.builder(once)
        .route(Route.builder("payments").path("/payments").build());
  }

  /** Writes the handler's row on {@code c}. */
  static void insert(Connection c, String id, long amount, String path) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO " + TABLE + " (payment_id, amount, path) VALUES (?, ?, ?)")) {
      ps.setString(1, id);
      ps.setLong(2, amount);
      ps.setString(3, path);
      ps.executeUpdate();
    }
  }

  /** Waits until a handler parked at {@code gate} has written its row. */
  void awaitEntered(String gate) throws InterruptedException {
    if (!latch(entered, gate).await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no handler reached gate " + gate);
    }
  }

  /** Lets every handler parked at {@code gate} go on. */
  void open(String gate) {
    latch(gates, gate).countDown();
  }

  private static CountDownLatch latch(Map<String, CountDownLatch> map, String name) {
    return map.computeIfAbsent(name, n -> new CountDownLatch(1));
  }

  /** Builds a request to {@code path} of this server. */
  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .timeout(Duration.ofSeconds(60));
  }

  /** A POST of {@code json} with {@code key} (null: none) as user {@code user} (null: none). */
  HttpRequest.Builder post(String path, String key, String user, String json) {
    HttpRequest.Builder b =
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (key != null) {
      b.header(IdempotencyFilter.KEY_HEADER, key);
    }
    if (user != null) {
      b.header("X-User", user);
    }
    return b;
  }

  HttpResponse<byte[]> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static String text(HttpResponse<byte[]> response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws Exception {
    gates.values().forEach(CountDownLatch::countDown);
    server.stop();
  }

  /** Makes {@code X-User} the request's principal: the application's authentication. */
  private static final class Authentication implements Filter {
    @Override
    public void doFilter(
        jakarta.servlet.ServletRequest request,
        jakarta.servlet.ServletResponse response,
        jakarta.servlet.FilterChain chain)
        throws IOException, ServletException {
      HttpServletRequest req = (HttpServletRequest) request;
      String user = req.getHeader("X-User");
      if (user == null) {
        chain.doFilter(request, response);
        return;
      }
      Principal principal = () -> user;
      chain.doFilter(
          new HttpServletRequestWrapper(req) {
            @Override
            public Principal getUserPrincipal() {
              return principal;
            }
          },
          response);
    }
  }

  /** The application's handler. */
  private final class Payments extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient Rows rows;
    private final transient Around around;

    Payments(Rows rows, Around around) {
      this.rows = rows;
      this.around = around;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse res)
        throws ServletException, IOException {
      try {
        around.run(() -> handle(req, res));
      } catch (IOException | ServletException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new ServletException(e);
      }
    }

    private void handle(HttpServletRequest req, HttpServletResponse res) throws Exception {
      if (req.getHeader("X-Throw") != null) {
        throw new ServletException("the handler failed");
      }
      String status = req.getHeader("X-Status");
      if (status != null) {
        res.setStatus(Integer.parseInt(status));
        res.setContentType("application/json");
        res.getWriter().write("{\"error\":\"status " + status + "\"}");
        return;
      }
      String body = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Matcher m = AMOUNT.matcher(body);
      long amount = m.find() ? Long.parseLong(m.group(1)) : 0;
      String id = UUID.randomUUID().toString();
      rows.insert(id, amount, req.getRequestURI());
      String then = req.getHeader("X-Then");
      if (then != null) {
        res.setStatus(Integer.parseInt(then));
        res.setContentType("application/json");
        res.getWriter().write("{\"wrote\":\"" + id + "\",\"then\":" + then + "}");
        return;
      }
      if (req.getHeader("X-Then-Throw") != null) {
        throw new ServletException("the handler failed after writing");
      }
      String gate = req.getHeader("X-Gate");
      if (gate != null) {
        latch(entered, gate).countDown();
        if (!latch(gates, gate).await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("gate " + gate + " never opened");
        }
      }
      res.setStatus(201);
      res.setHeader("Location", "/payments/" + id);
      res.setHeader("X-Not-Replayed", "volatile");
      res.setContentType("application/json;charset=UTF-8");
      boolean wrapped = req.getHeader("X-Async-Wrapped") != null;
      if (req.getHeader("X-Async") != null || wrapped) {
        // X-Async writes to the container's own response; X-Async-Wrapped to the one this handler
        // was given (as a framework's async support does), so the filter's answer is not raced.
        jakarta.servlet.AsyncContext async = wrapped ? req.startAsync(req, res) : req.startAsync();
        async.start(
            () -> {
              try {
                async
                    .getResponse()
                    .getOutputStream()
                    .write("{\"async\":true}".getBytes(StandardCharsets.UTF_8));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              } finally {
                async.complete();
              }
            });
        return;
      }
      String big = req.getHeader("X-Big");
      if (big != null) {
        byte[] filler = new byte[Integer.parseInt(big)];
        java.util.Arrays.fill(filler, (byte) 'x');
        res.getOutputStream().write(filler);
        return;
      }
      var out = res.getWriter();
      out.write("{\"id\":\"" + id + "\",");
      if (req.getHeader("X-Stream") != null) {
        res.flushBuffer();
      }
      out.write("\"amount\":" + amount + ",\"note\":\"\u00e9t\u00e9\"}");
    }
  }
}
