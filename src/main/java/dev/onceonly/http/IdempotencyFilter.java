package dev.onceonly.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.CanonicalizationException;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.Receipt;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.external.ClaimState;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.external.Settlement;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * A Servlet filter that gives an HTTP API the {@code Idempotency-Key} header
 * (draft-ietf-httpapi-idempotency-key-header, as Stripe and others use it): the handler of a
 * guarded request runs once per key and scope, and every retry with the same key and the same
 * request gets the stored response back, byte for byte, with {@code Idempotent-Replayed: true}.
 *
 * <pre>{@code
 * IdempotencyFilter filter = IdempotencyFilter.builder(once)
 *     .route(Route.builder("payments").path("/payments").keyRequired(true).build())
 *     .build();
 * }</pre>
 *
 * <p>Two modes. <b>Plain</b> (the default, any framework): a fenced claim of {@link
 * ExternalEffects} holds the key while the handler runs, and the response is stored as the claim's
 * result; for handlers whose effects leave the database. A crash in the handler leaves the claim to
 * run out; a retry then gets what the route declares ({@link Route.AfterCrash}).
 * <b>Transactional</b> ({@link Builder#transactional}): the handler runs inside the application's
 * transaction, which the receipt joins, so the handler's writes and the stored response commit
 * together, and a rollback stores nothing.
 *
 * <p>Every answer, with its status and problem type, is in docs/http.md. Thread-safe; one instance
 * serves every request.
 */
public final class IdempotencyFilter implements Filter {
  /** The request header that carries the key. */
  public static final String KEY_HEADER = "Idempotency-Key";

  /** The response header set on every replayed response. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** Where the problem types are documented; each type is this and the problem's name. */
  public static final String DEFAULT_PROBLEM_TYPE_BASE =
      "https://github.com/onceonly/onceonly/blob/main/docs/http.md#";

  private static final System.Logger LOG = System.getLogger(IdempotencyFilter.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BYTES = 64 << 20;
  private static final Canonicalizer FINGERPRINTS = Canonicalizer.defaults();

  private final OnceOnly once;
  private final List<Route> routes;
  private final ScopeResolver scopes;
  private final int missingScopeStatus;
  private final List<String> replayHeaders;
  private final IntPredicate storable;
  private final int maxRequestBytes;
  private final int maxResponseBytes;
  private final int maxKeyLength;
  private final Duration retention;
  private final InstantSource clock;
  private final long retryAfterSeconds;
  private final String problemTypeBase;
  private final HandlerTransaction transaction;
  private final Canonicalizer canonicalizer;

  private IdempotencyFilter(Builder b) {
    once = b.once;
    routes = List.copyOf(b.routes);
    scopes = b.scopes;
    missingScopeStatus = b.missingScopeStatus;
    replayHeaders = List.copyOf(b.replayHeaders);
    storable = b.storable;
    maxRequestBytes = b.maxRequestBytes;
    maxResponseBytes = b.maxResponseBytes;
    maxKeyLength = b.maxKeyLength;
    retention = b.retention;
    clock = b.clock;
    retryAfterSeconds = b.retryAfter.toSeconds();
    problemTypeBase = b.problemTypeBase;
    transaction = b.transaction;
    canonicalizer = Canonicalizer.builder().maxInputBytes(Math.max(1, maxRequestBytes)).build();
  }

  /**
   * Starts a filter on {@code once}.
   *
   * @param once the store the keys, claims and responses go to
   * @return the builder
   */
  public static Builder builder(OnceOnly once) {
    return new Builder(once);
  }

  /** {@return the routes, in the order they are matched} */
  public List<Route> routes() {
    return routes;
  }

  /** {@return whether the handler runs in the application's transaction} */
  public boolean transactional() {
    return transaction != null;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest req)
        || !(response instanceof HttpServletResponse res)) {
      chain.doFilter(request, response);
      return;
    }
    String path = path(req);
    Route route = route(req.getMethod(), path);
    if (route == null) {
      chain.doFilter(request, response);
      return;
    }
    List<String> values = Collections.list(req.getHeaders(KEY_HEADER));
    if (values.isEmpty()) {
      if (route.keyRequired()) {
        refuseUnread(
            req,
            res,
            Problem.KEY_MISSING,
            Problem.KEY_MISSING.status,
            "route '" + route.name() + "' requires an " + KEY_HEADER);
      } else {
        chain.doFilter(request, response);
      }
      return;
    }
    String key = values.size() == 1 ? KeyHeader.parse(values.get(0), maxKeyLength) : null;
    if (key == null) {
      refuseUnread(
          req, res, Problem.KEY_MALFORMED, Problem.KEY_MALFORMED.status, malformed(values));
      return;
    }
    String scope = scopes.scope(req);
    if (scope == null || scope.isEmpty()) {
      refuseUnread(
          req,
          res,
          Problem.SCOPE_MISSING,
          missingScopeStatus,
          "the request has no scope (an authenticated principal) for its " + KEY_HEADER);
      return;
    }
    byte[] body = readBody(req);
    if (body == null) {
      refuseUnread(
          req,
          res,
          Problem.REQUEST_TOO_LARGE,
          Problem.REQUEST_TOO_LARGE.status,
          "a body of more than " + maxRequestBytes + " bytes cannot be fingerprinted");
      return;
    }
    IntentKey intent = IntentKey.of(KeyHeader.storeScope(scope), KeyHeader.storeKey(key));
    ObjectNode arguments = fingerprint(route, req, path, body);
    HttpServletRequest handlerRequest = new BufferedRequest(req, body);
    try {
      if (transaction == null) {
        plain(route, intent, arguments, handlerRequest, res, chain);
      } else {
        transactional(route, intent, arguments, handlerRequest, res, chain);
      }
    } catch (InvalidRequestException e) {
      if (res.isCommitted()) {
        throw e;
      }
      res.reset();
      Problem.KEY_MALFORMED.send(
          res, problemTypeBase, "the store refused the key: " + e.getMessage());
    }
  }

  private String malformed(List<String> values) {
    if (values.size() > 1) {
      return "a request carries one " + KEY_HEADER + ", this one " + values.size();
    }
    return KEY_HEADER
        + " must be a structured-field string (\"...\") or token of 1 to "
        + maxKeyLength
        + " printable ASCII characters";
  }

  private static String path(HttpServletRequest req) {
    String uri = req.getRequestURI();
    String context = req.getContextPath();
    return context != null && !context.isEmpty() && uri.startsWith(context)
        ? uri.substring(context.length())
        : uri;
  }

  private Route route(String method, String path) {
    for (Route r : routes) {
      if (r.matches(method, path)) {
        return r;
      }
    }
    return null;
  }

  /** Reads the whole body, or returns null if it is larger than the bound. */
  private byte[] readBody(HttpServletRequest req) throws IOException {
    long declared = req.getContentLengthLong();
    if (declared > maxRequestBytes) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(declared > 0 ? (int) declared : 256);
    byte[] buf = new byte[8192];
    try (InputStream in = req.getInputStream()) {
      for (int n; (n = in.read(buf)) > 0; ) {
        if (out.size() + n > maxRequestBytes) {
          return null;
        }
        out.write(buf, 0, n);
      }
    }
    return out.toByteArray();
  }

  /**
   * The fingerprint's input: method, path, query, the body's digest (of its RFC 8785 form when it
   * is JSON, so that a retry's whitespace and member order do not matter; of its bytes otherwise)
   * and the route's fingerprint headers.
   */
  private ObjectNode fingerprint(Route route, HttpServletRequest req, String path, byte[] body) {
    ObjectNode args = JSON.createObjectNode();
    args.put("method", req.getMethod());
    args.put("path", path);
    String query = req.getQueryString();
    args.put("query", query == null ? "" : query);
    args.put("body", bodyDigest(req.getContentType(), body));
    if (!route.fingerprintHeaders().isEmpty()) {
      ObjectNode headers = args.putObject("headers");
      for (String name : route.fingerprintHeaders()) {
        ArrayNode list = headers.putArray(name);
        Collections.list(req.getHeaders(name)).forEach(list::add);
      }
    }
    return args;
  }

  private String bodyDigest(String contentType, byte[] body) {
    if (isJson(contentType) && body.length > 0) {
      try {
        return "jcs:" + KeyHeader.sha256Hex(canonicalizer.canonicalize(body));
      } catch (CanonicalizationException e) {
        // not I-JSON after all: the bytes are the request
      }
    }
    return "bytes:" + KeyHeader.sha256Hex(body);
  }

  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semicolon = contentType.indexOf(';');
    String type =
        (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
            .trim()
            .toLowerCase(Locale.ROOT);
    return type.equals("application/json") || type.endsWith("+json");
  }

  // ---- plain mode: a fenced claim around the handler ----

  private void plain(
      Route route,
      IntentKey intent,
      ObjectNode arguments,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain)
      throws IOException, ServletException {
    ExternalEffects effects = once.externalEffects();
    Optional<ClaimRecord> done = effects.find(intent);
    if (done.isPresent()
        && done.get().state() == ClaimState.COMPLETED
        && sameRequest(route, arguments, done.get().operation(), done.get().fingerprint())) {
      // A completed claim is final: its replay needs no write transaction.
      String json = done.get().resultJson();
      replay(res, done.get().completedAt(), () -> read(json));
      return;
    }
    ClaimOutcome outcome = effects.claim(intent, route.operation(), arguments, route.lease());
    if (outcome instanceof ClaimOutcome.Unknown
        && route.afterCrash() == Route.AfterCrash.RUN_AGAIN) {
      LOG.log(
          System.Logger.Level.INFO,
          "route {0}: an earlier request with this key stopped in its handler; running it again"
              + " (the route declares its handler idempotent)",
          route.name());
      effects.resolveNotDone(intent);
      outcome = effects.claim(intent, route.operation(), arguments, route.lease());
    }
    if (outcome instanceof ClaimOutcome.Claimed c) {
      runClaimed(route, effects, c.claim(), req, res, chain);
    } else if (outcome instanceof ClaimOutcome.Repeated r) {
      replay(res, r.completedAt(), () -> r.result(StoredResponse.class));
    } else if (outcome instanceof ClaimOutcome.InProgress) {
      inProgress(res);
    } else if (outcome instanceof ClaimOutcome.RetryLater) {
      inProgress(res);
    } else if (outcome instanceof ClaimOutcome.Conflict) {
      reused(res);
    } else if (outcome instanceof ClaimOutcome.Unknown) {
      Problem.OUTCOME_UNKNOWN.send(
          res,
          problemTypeBase,
          "an earlier request with this key stopped while its handler ran; an operator must"
              + " settle it (onceonly unknown resolve) before the key answers again");
    } else {
      Problem.CLOSED.send(
          res,
          problemTypeBase,
          "the key was "
              + (outcome instanceof ClaimOutcome.Cancelled ? "cancelled" : "failed")
              + " by an operator; send the request under a new key");
    }
  }

  private void runClaimed(
      Route route,
      ExternalEffects effects,
      Claim claim,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain)
      throws IOException, ServletException {
    CapturedResponse captured = new CapturedResponse(res, maxResponseBytes, true);
    boolean returned = false;
    try {
      chain.doFilter(req, captured);
      captured.finish();
      returned = true;
    } finally {
      if (!returned) {
        effects.abandon(claim);
      }
    }
    if (req.isAsyncStarted() || captured.streamed()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "route {0}: the handler {1}; the response is not stored and the key is released",
          route.name(),
          captured.tooLarge()
              ? "wrote more than maxResponseBytes (" + maxResponseBytes + ")"
              : req.isAsyncStarted() ? "went asynchronous" : "streamed its response");
      effects.abandon(claim);
      captured.startStreaming();
      return;
    }
    if (!storable.test(res.getStatus())) {
      effects.abandon(claim);
      captured.release();
      return;
    }
    Settlement settled = effects.complete(claim, captured.toStored(replayHeaders));
    if (settled instanceof Settlement.Fenced) {
      LOG.log(
          System.Logger.Level.WARNING,
          "route {0}: the handler outlived its lease ({1}) and the key was taken over; this"
              + " response is sent but not stored",
          route.name(),
          route.lease());
    }
    captured.release();
  }

  // ---- transactional mode: the receipt joins the application's transaction ----

  private void transactional(
      Route route,
      IntentKey intent,
      ObjectNode arguments,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain)
      throws IOException, ServletException {
    Optional<Receipt> stored = once.receipts().find(intent);
    if (stored.isPresent()
        && stored.get().resultJson() != null
        && stored.get().expiresAt().isAfter(clock.instant())
        && sameRequest(route, arguments, stored.get().operation(), stored.get().fingerprint())) {
      // A committed receipt is final: its replay needs no transaction of the application's.
      String json = stored.get().resultJson();
      replay(res, stored.get().createdAt(), () -> read(json));
      return;
    }
    CapturedResponse captured = new CapturedResponse(res, maxResponseBytes, false);
    Outcome<StoredResponse> outcome;
    try {
      outcome =
          transaction.inTransaction(
              () ->
                  once.receipts()
                      .execute(
                          intent,
                          route.operation(),
                          arguments,
                          StoredResponse.class,
                          connection -> handleInTransaction(route, req, res, chain, captured)));
    } catch (NotStored e) {
      if (e.detail == null) {
        captured.release();
      } else {
        LOG.log(System.Logger.Level.WARNING, "route {0}: {1}", route.name(), e.detail);
        res.reset();
        Problem.RESPONSE_NOT_STORED.send(res, problemTypeBase, e.detail);
      }
      return;
    } catch (IOException | ServletException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new ServletException(e);
    }
    if (outcome instanceof Outcome.Created) {
      captured.release();
    } else if (outcome instanceof Outcome.Repeated<StoredResponse> r) {
      replay(res, r.createdAt(), r::result);
    } else if (outcome instanceof Outcome.Conflict) {
      reused(res);
    } else {
      expired(res);
    }
  }

  private StoredResponse handleInTransaction(
      Route route,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      CapturedResponse captured)
      throws IOException, ServletException {
    chain.doFilter(req, captured);
    captured.finish();
    if (req.isAsyncStarted()) {
      throw new NotStored(
          "the handler went asynchronous, which the transactional mode cannot store; rolled back");
    }
    if (captured.tooLarge()) {
      throw new NotStored(
          "the response is larger than maxResponseBytes ("
              + maxResponseBytes
              + ") and cannot be stored; rolled back");
    }
    if (!storable.test(res.getStatus())) {
      throw new NotStored(null);
    }
    return captured.toStored(replayHeaders);
  }

  /** Rolls the transaction back; the response is sent unstored (detail null) or refused. */
  private static final class NotStored extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String detail;

    NotStored(String detail) {
      super(detail, null, false, false);
      this.detail = detail;
    }
  }

  /** Whether a stored intent is this request: same operation, same fingerprint. */
  private static boolean sameRequest(
      Route route, ObjectNode arguments, String operation, Fingerprint fingerprint) {
    return route.operation().equals(operation)
        && FINGERPRINTS.fingerprint(route.operation(), arguments).equals(fingerprint);
  }

  private static StoredResponse read(String json) {
    try {
      return JSON.readValue(json, StoredResponse.class);
    } catch (IOException e) {
      throw new IllegalStateException("not a stored response", e);
    }
  }

  // ---- the answers ----

  /** A stored result, read lazily: an operator's resolution may hold something else. */
  private interface Stored {
    StoredResponse get();
  }

  private void replay(HttpServletResponse res, Instant storedAt, Stored stored) throws IOException {
    if (storedAt.plus(retention).isBefore(clock.instant())) {
      expired(res);
      return;
    }
    StoredResponse response;
    try {
      response = stored.get();
    } catch (RuntimeException e) {
      Problem.RESPONSE_NOT_STORED.send(
          res, problemTypeBase, "the result stored for this key is not a response: " + e);
      return;
    }
    if (response == null) {
      Problem.RESPONSE_NOT_STORED.send(res, problemTypeBase, "no response stored for this key");
      return;
    }
    res.setStatus(response.status());
    for (StoredResponse.Header h : response.headers()) {
      if (h.name().equalsIgnoreCase("Content-Type")) {
        res.setContentType(h.value());
      } else {
        res.addHeader(h.name(), h.value());
      }
    }
    res.setHeader(REPLAYED_HEADER, "true");
    byte[] body = response.bodyBytes();
    res.setContentLength(body.length);
    res.getOutputStream().write(body);
  }

  private void inProgress(HttpServletResponse res) throws IOException {
    res.setHeader("Retry-After", Long.toString(retryAfterSeconds));
    Problem.IN_PROGRESS.send(
        res,
        problemTypeBase,
        "a request with this key is still being handled; retry after " + retryAfterSeconds + " s");
  }

  private void reused(HttpServletResponse res) throws IOException {
    Problem.KEY_REUSED.send(
        res,
        problemTypeBase,
        "this key was used for a request with another method, path, query or body");
  }

  private void expired(HttpServletResponse res) throws IOException {
    Problem.KEY_EXPIRED.send(
        res,
        problemTypeBase,
        "the response stored for this key is past its retention; send the request under a new"
            + " key");
  }

  /** Builds an {@link IdempotencyFilter}. Not thread-safe; the built filter is. */
  public static final class Builder {
    private final OnceOnly once;
    private final List<Route> routes = new ArrayList<>();
    private ScopeResolver scopes = ScopeResolver.principal();
    private int missingScopeStatus = 401;
    private final List<String> replayHeaders =
        new ArrayList<>(List.of("Content-Type", "Content-Language", "Location", "ETag"));
    private IntPredicate storable = IdempotencyFilter::storedByDefault;
    private int maxRequestBytes = 1 << 20;
    private int maxResponseBytes = 1 << 20;
    private int maxKeyLength = 255;
    private Duration retention = Duration.ofHours(24);
    private InstantSource clock = InstantSource.system();
    private Duration retryAfter = Duration.ofSeconds(1);
    private String problemTypeBase = DEFAULT_PROBLEM_TYPE_BASE;
    private HandlerTransaction transaction;

    private Builder(OnceOnly once) {
      this.once = Objects.requireNonNull(once, "once");
    }

    /**
     * Adds a route; requests are matched against the routes in the order they were added, and a
     * request no route matches passes through.
     *
     * @param route the route
     * @return this builder
     * @throws IllegalArgumentException if a route of the same name was added
     */
    public Builder route(Route route) {
      Objects.requireNonNull(route, "route");
      for (Route r : routes) {
        if (r.name().equals(route.name())) {
          throw new IllegalArgumentException("route name '" + route.name() + "' is used twice");
        }
      }
      routes.add(route);
      return this;
    }

    /**
     * Sets where a request's scope comes from. Default {@link ScopeResolver#principal()}.
     *
     * @param resolver the resolver
     * @return this builder
     */
    public Builder scope(ScopeResolver resolver) {
      this.scopes = Objects.requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * Sets the status of the answer to a request with a key but no scope. Default 401.
     *
     * @param status 400 or 401
     * @return this builder
     * @throws IllegalArgumentException if it is neither
     */
    public Builder missingScopeStatus(int status) {
      if (status != 400 && status != 401) {
        throw new IllegalArgumentException("missingScopeStatus must be 400 or 401, was " + status);
      }
      this.missingScopeStatus = status;
      return this;
    }

    /**
     * Sets the response headers stored with a response and replayed, replacing the default {@code
     * Content-Type}, {@code Content-Language}, {@code Location} and {@code ETag}. Others (cookies,
     * dates, tracing) are not stored.
     *
     * @param names header names
     * @return this builder
     * @throws IllegalArgumentException if a name is blank
     */
    public Builder replayHeaders(String... names) {
      List<String> chosen = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (String n : names) {
        Objects.requireNonNull(n, "header name");
        if (n.isBlank()) {
          throw new IllegalArgumentException("replay header name must not be blank");
        }
        if (seen.add(n.toLowerCase(Locale.ROOT))) {
          chosen.add(n);
        }
      }
      replayHeaders.clear();
      replayHeaders.addAll(chosen);
      return this;
    }

    /**
     * Sets which statuses are stored and replayed. The others release the key (plain mode) or roll
     * the transaction back (transactional mode), so that the client may retry. Default: 2xx, and
     * 4xx except 409 and 429.
     *
     * @param statuses whether a status is stored
     * @return this builder
     */
    public Builder storeStatus(IntPredicate statuses) {
      this.storable = Objects.requireNonNull(statuses, "statuses");
      return this;
    }

    /**
     * Sets the largest request body a guarded request may have (it is read whole, to fingerprint
     * it); a larger one is refused with 413. Default 1 MiB.
     *
     * @param bytes from 0 to 64 MiB
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder maxRequestBytes(int bytes) {
      this.maxRequestBytes = bytes(bytes, "maxRequestBytes");
      return this;
    }

    /**
     * Sets the largest response body that is stored. Plain mode: a larger response is sent
     * (streamed) but not stored, the key is released and a warning logged. Transactional mode: the
     * transaction is rolled back and the answer is 500 ({@code response-not-stored}). Default 1
     * MiB.
     *
     * @param bytes from 0 to 64 MiB
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder maxResponseBytes(int bytes) {
      this.maxResponseBytes = bytes(bytes, "maxResponseBytes");
      return this;
    }

    private static int bytes(int bytes, String name) {
      if (bytes < 0 || bytes > MAX_BYTES) {
        throw new IllegalArgumentException(name + " must be from 0 to " + MAX_BYTES);
      }
      return bytes;
    }

    /**
     * Sets the longest key accepted, in characters. Default 255.
     *
     * @param chars from 1 to 1,024
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder maxKeyLength(int chars) {
      if (chars < 1 || chars > 1024) {
        throw new IllegalArgumentException("maxKeyLength must be from 1 to 1024, was " + chars);
      }
      this.maxKeyLength = chars;
      return this;
    }

    /**
     * Sets how long a stored response is replayed. After it, the key answers 422 {@code
     * key-expired}, never a second run; in the transactional mode the store's own {@link
     * OnceOnly.Builder#resultRetention} ends it too, whichever comes first. Default 24 hours.
     *
     * @param retention positive, at most 100 years
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder replayRetention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.isNegative()
          || retention.isZero()
          || retention.compareTo(Duration.ofDays(36_500)) > 0) {
        throw new IllegalArgumentException(
            "replayRetention must be > 0 and at most 100 years, was " + retention);
      }
      this.retention = retention;
      return this;
    }

    /**
     * Sets the clock the replay retention is judged by; use the store's. Default the system clock.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets the {@code Retry-After} of the 409 answer to a request whose key is in progress. Default
     * 1 second.
     *
     * @param retryAfter whole seconds, from 1 to 3,600
     * @return this builder
     * @throws IllegalArgumentException if out of range or not whole seconds
     */
    public Builder retryAfter(Duration retryAfter) {
      Objects.requireNonNull(retryAfter, "retryAfter");
      if (retryAfter.toSeconds() < 1
          || retryAfter.toSeconds() > 3600
          || retryAfter.toNanosPart() != 0) {
        throw new IllegalArgumentException(
            "retryAfter must be whole seconds from 1 to 3600, was " + retryAfter);
      }
      this.retryAfter = retryAfter;
      return this;
    }

    /**
     * Sets the prefix of the problem types, for an API that documents them itself. Default {@link
     * #DEFAULT_PROBLEM_TYPE_BASE}.
     *
     * @param base an absolute URI prefix, such as {@code https://api.example.com/problems/}
     * @return this builder
     * @throws IllegalArgumentException if it is not an absolute http(s) URI prefix
     */
    public Builder problemTypeBase(String base) {
      Objects.requireNonNull(base, "base");
      if (!base.startsWith("https://") && !base.startsWith("http://")) {
        throw new IllegalArgumentException(
            "problemTypeBase must start with https:// or http://, was '" + base + "'");
      }
      this.problemTypeBase = base;
      return this;
    }

    /**
     * Runs every guarded handler in the application's transaction (the transactional mode). The
     * {@link OnceOnly} must join it ({@link OnceOnly.Builder#currentTransaction} on the data source
     * the transaction runs on): the handler's writes and the stored response commit together.
     * Default: none, the plain mode.
     *
     * @param transaction the application's transactions
     * @return this builder
     */
    public Builder transactional(HandlerTransaction transaction) {
      this.transaction = Objects.requireNonNull(transaction, "transaction");
      return this;
    }

    /**
     * Builds the filter.
     *
     * @return the filter
     * @throws IllegalArgumentException if no route was added
     */
    public IdempotencyFilter build() {
      if (routes.isEmpty()) {
        throw new IllegalArgumentException("an IdempotencyFilter needs at least one route");
      }
      return new IdempotencyFilter(this);
    }
  }

  /** 2xx, and 4xx except 409 (a conflict the client may resolve) and 429 (come back later). */
  private static boolean storedByDefault(int status) {
    return status >= 200 && status < 300
        || status >= 400 && status < 500 && status != 409 && status != 429;
  }

  /**
   * Answers {@code problem} before the request's body was read, or all of it. On HTTP/1.1, when the
   * request has a body, it asks the client to close the connection: the server may drop such a
   * connection once the answer is written, without saying so, and a client that reused it would
   * find it closed before its next request's answer. {@code Connection} is a hop-by-hop header
   * HTTP/2 does not have.
   */
  private void refuseUnread(
      HttpServletRequest req, HttpServletResponse res, Problem problem, int status, String detail)
      throws IOException {
    boolean body = req.getContentLengthLong() != 0 || req.getHeader("Transfer-Encoding") != null;
    if (body && req.getProtocol() != null && req.getProtocol().startsWith("HTTP/1")) {
      res.setHeader("Connection", "close");
    }
    problem.send(res, problemTypeBase, status, detail);
  }
}
