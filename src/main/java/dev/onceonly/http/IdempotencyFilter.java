package dev.onceonly.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
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

  /** The default bound of the replay cache, in bytes: {@value}. */
  public static final long DEFAULT_REPLAY_CACHE_BYTES = 4L << 20;

  private static final System.Logger LOG = System.getLogger(IdempotencyFilter.class.getName());
  private static final int MAX_BYTES = 64 << 20;

  private final OnceOnly once;
  private final List<Route> routes;
  private final ScopeResolver scopes;
  private final int missingScopeStatus;
  private final List<String> replayHeaders;
  private final IntPredicate storable;
  private final int maxRequestBytes;
  private final int maxResponseBytes;
  private final int maxKeyLength;
  private final InstantSource clock;
  private final HandlerTransaction transaction;
  private final RequestFingerprint fingerprints;
  private final Answers answers;
  private final ReplayCache cache;

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
    clock = b.clock;
    transaction = b.transaction;
    fingerprints = new RequestFingerprint(maxRequestBytes);
    cache = new ReplayCache(b.replayCacheBytes, b.retention);
    answers =
        new Answers(b.problemTypeBase, b.retention, clock, b.retryAfter.toSeconds(), once.events());
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
    long started = System.nanoTime();
    String path = DispatchedPath.of(req);
    Route route = route(req.getMethod(), path);
    if (route == null) {
      chain.doFilter(request, response);
      return;
    }
    List<String> values = Collections.list(req.getHeaders(KEY_HEADER));
    if (values.isEmpty()) {
      if (route.keyRequired()) {
        answers.refuseUnread(
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
      answers.refuseUnread(
          req, res, Problem.KEY_MALFORMED, Problem.KEY_MALFORMED.status, malformed(values));
      return;
    }
    String scope = scopes.scope(req);
    if (scope == null || scope.isEmpty()) {
      answers.refuseUnread(
          req,
          res,
          Problem.SCOPE_MISSING,
          missingScopeStatus,
          "the request has no scope for its " + KEY_HEADER + ": " + ScopeSources.missing(scopes));
      return;
    }
    byte[] body = readBody(req);
    if (body == null) {
      answers.refuseUnread(
          req,
          res,
          Problem.REQUEST_TOO_LARGE,
          Problem.REQUEST_TOO_LARGE.status,
          "a body of more than " + maxRequestBytes + " bytes cannot be fingerprinted");
      return;
    }
    IntentKey intent = IntentKey.of(KeyHeader.storeScope(scope), KeyHeader.storeKey(key));
    ObjectNode arguments = fingerprints.arguments(route, req, path, body);
    HttpServletRequest handlerRequest = new BufferedRequest(req, body);
    Guarded guarded = new Guarded(route, intent, arguments, started);
    try {
      if (transaction == null) {
        plain(guarded, handlerRequest, res, chain);
      } else {
        transactional(guarded, handlerRequest, res, chain);
      }
    } catch (InvalidRequestException e) {
      if (res.isCommitted()) {
        throw e;
      }
      res.reset();
      answers.send(res, Problem.KEY_MALFORMED, "the store refused the key: " + e.getMessage());
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

  /** A guarded request: its route, intent, fingerprint input and when the filter took it. */
  private record Guarded(Route route, IntentKey intent, ObjectNode arguments, long started) {
    boolean same(String operation, Fingerprint fingerprint) {
      return RequestFingerprint.sameRequest(route, arguments, operation, fingerprint);
    }
  }

  /** Counts the step of {@code g} in {@code onceonly.receipts.outcomes}, if it has an outcome. */
  private void counted(Guarded g, String outcome) {
    if (outcome != null) {
      answers.counted(g.route().operation(), g.intent(), outcome, g.started());
    }
  }

  /**
   * Replays the response of {@code g}'s key from the cache if it holds one for this request that
   * may still be answered; returns whether it did.
   */
  private boolean answeredFromCache(Guarded g, HttpServletResponse res) throws IOException {
    ReplayCache.Entry hit = cache.get(g.intent(), clock.instant());
    if (hit == null || !g.same(hit.operation(), hit.fingerprint())) {
      return false;
    }
    counted(g, answers.replay(res, hit.storedAt(), hit::response));
    return true;
  }

  /**
   * Replays the response the store holds as final for {@code g}'s key (read by {@code stored},
   * stored at {@code storedAt}, of a receipt expiring at {@code expiresAt}, null for a claim) and
   * keeps it in the cache.
   */
  private void replayKept(
      Guarded g,
      HttpServletResponse res,
      Fingerprint fingerprint,
      Instant storedAt,
      Instant expiresAt,
      Answers.Stored stored)
      throws IOException {
    Answers.Stored kept =
        () ->
            cache.keep(
                g.intent(), g.route().operation(), fingerprint, storedAt, expiresAt, stored.get());
    counted(g, answers.replay(res, storedAt, kept));
  }

  // ---- plain mode: a fenced claim around the handler ----

  private void plain(Guarded g, HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    Route route = g.route();
    IntentKey intent = g.intent();
    ObjectNode arguments = g.arguments();
    if (answeredFromCache(g, res)) {
      return;
    }
    ExternalEffects effects = once.externalEffects();
    Optional<ClaimRecord> done = effects.find(intent);
    if (done.isPresent()
        && done.get().state() == ClaimState.COMPLETED
        && g.same(done.get().operation(), done.get().fingerprint())) {
      // A completed claim is final: its replay needs no write transaction.
      ClaimRecord claim = done.get();
      String json = claim.resultJson();
      replayKept(g, res, claim.fingerprint(), claim.completedAt(), null, () -> Answers.read(json));
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
      if (runClaimed(g, effects, c.claim(), req, res, chain)) {
        counted(g, "created");
      }
    } else if (outcome instanceof ClaimOutcome.Repeated r) {
      replayKept(
          g, res, r.fingerprint(), r.completedAt(), null, () -> r.result(StoredResponse.class));
    } else if (outcome instanceof ClaimOutcome.InProgress
        || outcome instanceof ClaimOutcome.RetryLater) {
      answers.inProgress(res);
    } else if (outcome instanceof ClaimOutcome.Conflict) {
      counted(g, "conflict");
      answers.reused(res);
    } else if (outcome instanceof ClaimOutcome.Unknown) {
      answers.send(
          res,
          Problem.OUTCOME_UNKNOWN,
          "an earlier request with this key stopped while its handler ran; an operator must"
              + " settle it (onceonly unknown resolve) before the key answers again");
    } else {
      answers.send(
          res,
          Problem.CLOSED,
          "the key was "
              + (outcome instanceof ClaimOutcome.Cancelled ? "cancelled" : "failed")
              + " by an operator; send the request under a new key");
    }
  }

  /** Runs the handler under its claim; returns whether its response was stored. */
  private boolean runClaimed(
      Guarded g,
      ExternalEffects effects,
      Claim claim,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain)
      throws IOException, ServletException {
    Route route = g.route();
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
      return false;
    }
    if (!storable.test(res.getStatus())) {
      effects.abandon(claim);
      captured.release();
      return false;
    }
    StoredResponse stored = captured.toStored(replayHeaders);
    // At or before the store's completed_at: the entry expires no later than the row.
    Instant completing = clock.instant();
    Settlement settled = effects.complete(claim, stored);
    if (settled instanceof Settlement.Completed) {
      cache.keep(g.intent(), route.operation(), claim.fingerprint(), completing, null, stored);
    } else if (settled instanceof Settlement.Fenced) {
      LOG.log(
          System.Logger.Level.WARNING,
          "route {0}: the handler outlived its lease ({1}) and the key was taken over; this"
              + " response is sent but not stored",
          route.name(),
          route.lease());
    }
    captured.release();
    return settled instanceof Settlement.Completed;
  }

  // ---- transactional mode: the receipt joins the application's transaction ----

  private void transactional(
      Guarded g, HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    Route route = g.route();
    IntentKey intent = g.intent();
    if (answeredFromCache(g, res)) {
      return;
    }
    Optional<Receipt> stored = once.receipts().find(intent);
    if (stored.isPresent()
        && stored.get().resultJson() != null
        && stored.get().expiresAt().isAfter(clock.instant())
        && g.same(stored.get().operation(), stored.get().fingerprint())) {
      // A committed receipt is final: its replay needs no transaction of the application's.
      // The receipts counted no step for it, so the filter does.
      Receipt receipt = stored.get();
      String json = receipt.resultJson();
      replayKept(
          g,
          res,
          receipt.fingerprint(),
          receipt.createdAt(),
          receipt.expiresAt(),
          () -> Answers.read(json));
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
                          g.arguments(),
                          StoredResponse.class,
                          connection -> handleInTransaction(route, req, res, chain, captured)));
    } catch (NotStored e) {
      if (e.detail == null) {
        captured.release();
      } else {
        LOG.log(System.Logger.Level.WARNING, "route {0}: {1}", route.name(), e.detail);
        res.reset();
        answers.send(res, Problem.RESPONSE_NOT_STORED, e.detail);
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
      answers.replay(res, r.createdAt(), r::result);
    } else if (outcome instanceof Outcome.Conflict) {
      answers.reused(res);
    } else {
      answers.expired(res);
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
    private long replayCacheBytes = DEFAULT_REPLAY_CACHE_BYTES;

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
     * OnceOnlyBuilder#resultRetention} ends it too, whichever comes first. Default 24 hours.
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
     * Sets how many bytes of stored responses the filter keeps in memory to answer replays without
     * reading the store; 0 turns the cache off. Default {@value #DEFAULT_REPLAY_CACHE_BYTES} (4
     * MiB). The cache holds only responses this filter saw completed in its store (its own
     * completions, and completed claims or committed receipts it read), and answers one only before
     * the replay retention and the receipt's expiry end, judged by {@link #clock}; a purge acts
     * only on receipts past their expiry, in any process, so it never removes a response the cache
     * still answers while the processes' clocks agree. The least recently answered responses go
     * first when it is full.
     *
     * @param bytes from 0 to 1 GiB
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder replayCacheBytes(long bytes) {
      if (bytes < 0 || bytes > 1L << 30) {
        throw new IllegalArgumentException(
            "replayCacheBytes must be from 0 to 1 GiB (1073741824), was " + bytes);
      }
      this.replayCacheBytes = bytes;
      return this;
    }

    /**
     * Runs every guarded handler in the application's transaction (the transactional mode). The
     * {@link OnceOnly} must join it ({@link OnceOnlyBuilder#currentTransaction} on the data source
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
}
