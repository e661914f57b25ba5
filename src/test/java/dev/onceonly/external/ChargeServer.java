package dev.onceonly.external;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A payment provider over real HTTP (the JDK's server on a loopback port) that does not deduplicate
 * by the idempotency key, so a second charge under one key shows as two charges in its records.
 *
 * <ul>
 *   <li>{@code POST /charges} with an {@code Idempotency-Key} header charges and answers 201 with
 *       the charge; for a key told to {@link #loseAnswer}, it charges and then drops the connection
 *       without an answer; for one told to {@link #dropRequest}, it drops it without charging.
 *   <li>{@code GET /charges/<key>} answers 200 with the charge made under the key, or 404; while
 *       {@link #hangLookups} is on, it answers nothing until {@link #close}.
 * </ul>
 *
 * <p>{@link #stop} takes it down (connections are refused) and {@link #start} brings it back on a
 * new port with its records. Thread-safe.
 */
final class ChargeServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, List<Map<String, Object>>> charges = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
  private final Set<String> lose = ConcurrentHashMap.newKeySet();
  private final Set<String> drop = ConcurrentHashMap.newKeySet();
  private final AtomicInteger ids = new AtomicInteger();
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile boolean hang;
  private volatile HttpServer server;
  private ExecutorService pool;

  /** Starts it on a free loopback port. */
  ChargeServer start() {
    try {
      HttpServer s =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      pool = Executors.newFixedThreadPool(8);
      s.setExecutor(pool);
      s.createContext("/charges", this::handle);
      s.start();
      server = s;
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Takes it down: new connections are refused until {@link #start}. */
  void stop() {
    server.stop(0);
    pool.shutdownNow();
  }

  /** {@return where it listens now} */
  URI base() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  void loseAnswer(String downstreamKey) {
    lose.add(downstreamKey);
  }

  void dropRequest(String downstreamKey) {
    drop.add(downstreamKey);
  }

  /** Answers every request normally from now on. */
  void heal() {
    lose.clear();
    drop.clear();
  }

  void hangLookups(boolean on) {
    hang = on;
  }

  /** {@return the charges made under a key, as the provider's records hold them} */
  List<Map<String, Object>> charges(String downstreamKey) {
    return charges.getOrDefault(downstreamKey, List.of());
  }

  /** {@return how many times a key was looked up} */
  int lookups(String downstreamKey) {
    AtomicInteger n = lookups.get(downstreamKey);
    return n == null ? 0 : n.get();
  }

  private void handle(HttpExchange x) throws IOException {
    try (InputStream in = x.getRequestBody()) {
      in.readAllBytes();
    }
    if (x.getRequestMethod().equals("POST")) {
      charge(x);
    } else {
      lookup(x);
    }
  }

  private void charge(HttpExchange x) throws IOException {
    String key = x.getRequestHeaders().getFirst("Idempotency-Key");
    if (drop.contains(key)) {
      abort(x); // the request is lost on its way in: nothing charged
      return;
    }
    Map<String, Object> charge = Map.of("id", "ch-" + ids.incrementAndGet(), "key", key);
    charges.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(charge);
    if (lose.contains(key)) {
      abort(x); // charged; the answer is lost on its way back
      return;
    }
    send(x, 201, JSON.writeValueAsString(charge));
  }

  private void lookup(HttpExchange x) throws IOException {
    String key = x.getRequestURI().getPath().substring("/charges/".length());
    lookups.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    if (hang) {
      try {
        released.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      abort(x);
      return;
    }
    List<Map<String, Object>> made = charges(key);
    if (made.isEmpty()) {
      send(x, 404, "{\"error\":\"no charge under this key\"}");
    } else {
      send(x, 200, JSON.writeValueAsString(made.get(0)));
    }
  }

  private static void send(HttpExchange x, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "application/json");
    x.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Drops the connection without an answer. */
  private static void abort(HttpExchange x) {
    x.close();
  }

  @Override
  public void close() {
    released.countDown();
    if (server != null) {
      stop();
    }
  }

  /** The worker's side: charges with the claim's downstream key over HTTP and reports. */
  static Settlement charge(ExternalEffects effects, Claim claim, HttpClient http, URI base) {
    HttpRequest post =
        HttpRequest.newBuilder(base.resolve("/charges"))
            .timeout(Duration.ofSeconds(30))
            .header("Idempotency-Key", claim.downstreamKey())
            .POST(HttpRequest.BodyPublishers.ofString("{\"cents\":1200}"))
            .build();
    try {
      HttpResponse<String> r = http.send(post, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 201) {
        return effects.complete(claim, JSON.readValue(r.body(), Map.class));
      }
      return effects.fail(claim, Failure.unknownAfterSend("HTTP " + r.statusCode()));
    } catch (IOException e) {
      return effects.fail(claim, Failure.unknownAfterSend(e.toString()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Reads a stored result or a provider's body back as a map, to compare the two. */
  static Map<?, ?> map(String json) {
    try {
      return JSON.readValue(json, Map.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
