package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyException;
import dev.onceonly.Reconciler;
import dev.onceonly.maintenance.Audit;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The operator's dashboard as a Servlet: pages that show what a store holds and forms that settle
 * it, each through the public APIs of {@link OnceOnly} (maintenance, queue, schedules, external
 * effects), never through SQL of its own. Map it under a path of its own, for example {@code
 * /onceonly/*}:
 *
 * <pre>{@code
 * context.addServlet(new ServletHolder(DashboardServlet.builder(once).build()), "/onceonly/*");
 * }</pre>
 *
 * <p>Security: every action is a POST carrying a CSRF value bound to the request's session (the
 * dashboard session an access token starts, else the container's session or principal; see the
 * security model in the docs); a POST without it, or on a {@link Builder#readOnly read-only}
 * dashboard, is refused before anything is read. Actions are logged with who did them (the
 * request's principal, {@code token} in the standalone mode, else {@code anonymous}) on the logger
 * {@code dev.onceonly.dashboard}. Pages escape every value they show and send {@code
 * Content-Security-Policy: default-src 'self'}: no script at all. Who may see the pages is the
 * container's business (its security constraints, Spring Security) unless an {@link
 * Builder#accessToken access token} is set; who may act, {@link Builder#mayAct}'s.
 *
 * <p>Thread-safe: one instance serves every request.
 */
public final class DashboardServlet extends HttpServlet {
  @Serial private static final long serialVersionUID = 1L;

  private static final System.Logger LOG = System.getLogger("dev.onceonly.dashboard");
  private static final String CSP =
      "default-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
  private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST");
  private static final String ALLOW = "GET, HEAD, POST";

  private final transient Pages pages;
  private final transient Actions actions;
  private final transient Guard guard;
  private final transient Predicate<HttpServletRequest> mayAct;
  private final transient Function<HttpServletRequest, Map<String, String>> formFields;
  private final transient boolean readOnly;

  private DashboardServlet(Builder b) {
    this.readOnly = b.readOnly;
    this.guard = new Guard(b.accessToken);
    this.mayAct = b.mayAct;
    this.formFields = b.formFields;
    OverviewPage overview = new OverviewPage(b.once, new History(), b.throughput);
    this.pages = new Pages(b.once, b.reconciler != null, b.auditRules, overview);
    this.actions = new Actions(b.once, b.reconciler);
  }

  /**
   * Starts a dashboard over one store: read-write, no access token, every principal may act.
   *
   * @param once the store
   * @return a builder
   */
  public static Builder builder(OnceOnly once) {
    return new Builder(once);
  }

  /**
   * {@return a new random access token, 43 URL-safe characters, for {@link Builder#accessToken}}
   */
  public static String newAccessToken() {
    return Guard.newToken();
  }

  /**
   * {@return the headers every answer of the dashboard carries (its Content-Security-Policy and the
   * rest), for the error pages of the server it runs in to carry them too}
   */
  public static Map<String, String> securityHeaders() {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Security-Policy", CSP);
    h.put("X-Content-Type-Options", "nosniff");
    h.put("Referrer-Policy", "no-referrer");
    h.put("Cache-Control", "no-store");
    h.put("X-Frame-Options", "DENY");
    return h;
  }

  /**
   * {@return the methods the dashboard answers, as an {@code Allow} header lists them: {@code GET,
   * HEAD, POST}; every other one (TRACE, which would echo its cookies, OPTIONS, PUT...) is refused
   * with 405}
   */
  public static String allowedMethods() {
    return ALLOW;
  }

  /** Refuses, with 405, every method but GET, HEAD and POST, before anything is read. */
  @Override
  protected void service(HttpServletRequest req, HttpServletResponse res)
      throws ServletException, IOException {
    if (METHODS.contains(req.getMethod())) {
      super.service(req, res);
      return;
    }
    secure(res);
    res.setHeader("Allow", ALLOW);
    refuse(res, 405, req.getMethod() + " is not a method of this dashboard: " + ALLOW);
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    secure(res);
    if (!admitted(req, res)) {
      return;
    }
    String path = req.getPathInfo();
    if (path == null) {
      res.sendRedirect(base(req) + "/");
      return;
    }
    if (path.equals("/assets/dashboard.css")) {
      asset(res, "dashboard.css", "text/css; charset=UTF-8");
      return;
    }
    if (path.equals("/assets/favicon.svg")) {
      asset(res, "favicon.svg", "image/svg+xml");
      return;
    }
    View view = view(req, res, !readOnly && mayAct.test(req));
    answer(res, view, () -> pages.render(path, view));
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
    secure(res);
    req.setCharacterEncoding("UTF-8");
    if (!guard.admitted(req)) {
      refuse(res, 401, "an access token is required: open the URL the dashboard printed");
    } else if (readOnly) {
      refuse(res, 405, "this dashboard is read-only: no action is taken");
    } else if (!mayAct.test(req)) {
      refuse(res, 403, "you may see this dashboard but not act on it: nothing changed");
    } else if (!guard.csrfValid(req)) {
      refuse(res, 403, "missing or wrong CSRF value: reload the page; nothing changed");
    } else {
      View view = view(req, res, true);
      String path = Objects.requireNonNullElse(req.getPathInfo(), "/");
      answer(
          res,
          view,
          () -> {
            String done = actions.run(path, view);
            LOG.log(
                System.Logger.Level.INFO,
                "dashboard action {0} by {1}: {2}",
                path,
                view.actor(),
                view.logged());
            return done;
          });
    }
  }

  /** Renders one page, or the error of a refused request with nothing changed. */
  private void answer(HttpServletResponse res, View view, Pages.Body body) throws IOException {
    String html;
    int status = 200;
    try {
      html = pages.frame(view, body.render());
    } catch (NotFound e) {
      status = 404;
      html = pages.frame(view, pages.error(e.getMessage()));
    } catch (IllegalArgumentException | OnceOnlyException e) {
      status = 400;
      html = pages.frame(view, pages.error(e.getMessage()));
    }
    res.setStatus(status);
    res.setContentType("text/html; charset=UTF-8");
    res.getOutputStream().write(html.getBytes(StandardCharsets.UTF_8));
  }

  private boolean admitted(HttpServletRequest req, HttpServletResponse res) throws IOException {
    if (guard.tokenInQuery(req)) {
      // Take the token out of the address bar and the history: a cookie carries it from now on.
      guard.startSession(req, res, cookiePath(req));
      res.setStatus(303);
      res.setHeader("Location", base(req) + Objects.requireNonNullElse(req.getPathInfo(), "/"));
      return false;
    }
    if (!guard.admitted(req)) {
      refuse(res, 401, "an access token is required: open the URL the dashboard printed");
      return false;
    }
    return true;
  }

  private View view(HttpServletRequest req, HttpServletResponse res, boolean mayActNow) {
    String actor;
    if (req.getUserPrincipal() != null) {
      actor = req.getUserPrincipal().getName();
    } else {
      actor = guard.tokenRequired() ? "token" : "anonymous";
    }
    // The host's fields first: reading its token may start the container's session (Spring
    // Security's is deferred), and the CSRF value is bound to that session.
    Map<String, String> fields = mayActNow ? formFields.apply(req) : Map.of();
    String csrf = mayActNow ? guard.csrfFor(req, res, cookiePath(req)) : null;
    return new View(req, base(req), csrf, actor, fields == null ? Map.of() : Map.copyOf(fields));
  }

  private static void secure(HttpServletResponse res) {
    securityHeaders().forEach(res::setHeader);
  }

  private static void refuse(HttpServletResponse res, int status, String why) throws IOException {
    res.setStatus(status);
    res.setContentType("text/plain; charset=UTF-8");
    res.getOutputStream().write((why + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private static void asset(HttpServletResponse res, String name, String type) throws IOException {
    try (InputStream in = DashboardServlet.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the jar");
      }
      res.setContentType(type);
      res.setHeader("Cache-Control", "max-age=3600");
      in.transferTo(res.getOutputStream());
    }
  }

  private static String base(HttpServletRequest req) {
    return req.getContextPath() + req.getServletPath();
  }

  private static String cookiePath(HttpServletRequest req) {
    String base = base(req);
    return base.isEmpty() ? "/" : base;
  }

  /** A page or action that names something the store does not hold. */
  static final class NotFound extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;

    NotFound(String message) {
      super(message);
    }
  }

  /**
   * One request as the pages see it.
   *
   * @param req the request
   * @param base the dashboard's path, to prefix links with
   * @param csrf the value forms carry, or null when this request may not act
   * @param actor who acts, for the log
   * @param formFields the host's hidden fields each form carries besides the CSRF value
   */
  record View(
      HttpServletRequest req,
      String base,
      String csrf,
      String actor,
      Map<String, String> formFields) {
    boolean mayAct() {
      return csrf != null;
    }

    String param(String name) {
      String v = req.getParameter(name);
      return v == null ? "" : v;
    }

    /**
     * The fields an action names, for the log line: invisible characters shown as escapes, so a key
     * cannot forge a line of its own.
     */
    String logged() {
      StringBuilder out = new StringBuilder();
      for (String name :
          new String[] {
            "queue",
            "key",
            "scope",
            "name",
            "outcome",
            "reason",
            "action",
            "error",
            "max",
            "confirm",
            "slot",
            "id",
            "compensate"
          }) {
        String value = exact(name);
        if (!value.isEmpty()) {
          out.append(out.isEmpty() ? "" : ", ").append(name).append('=');
          out.append(Html.visible(value));
        }
      }
      return out.toString();
    }

    /** A value sent by {@link Html#hiddenExact}, or else typed into a field of that name. */
    String exact(String name) {
      String b64 = param(name + "64");
      if (b64.isEmpty()) {
        return param(name);
      }
      try {
        return new String(
            java.util.Base64.getUrlDecoder().decode(b64), java.nio.charset.StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(name + " is not valid Base64", e);
      }
    }
  }

  /** Configures a {@link DashboardServlet}. Not thread-safe. */
  public static final class Builder {
    private final OnceOnly once;
    private boolean readOnly;
    private String accessToken;
    private Predicate<HttpServletRequest> mayAct = req -> true;
    private Function<HttpServletRequest, Map<String, String>> formFields = req -> Map.of();
    private Reconciler reconciler;
    private Throughput throughput;
    private Audit.Rules auditRules =
        Audit.Rules.storeOnly(Duration.ofHours(1), Duration.ofMinutes(5));

    private Builder(OnceOnly once) {
      this.once = Objects.requireNonNull(once, "once");
    }

    /**
     * Adds hidden fields, read per request, to every action form besides the dashboard's own CSRF
     * value: for a host framework that checks its own CSRF token on every POST before the dashboard
     * sees it. The Spring Boot auto-configuration passes Spring Security's token here, so the
     * dashboard's path needs no exemption from Spring Security's CSRF check. Names and values are
     * escaped. Default none.
     *
     * @param formFields from a request to the fields (name to value) its forms carry
     * @return this builder
     */
    public Builder formFields(Function<HttpServletRequest, Map<String, String>> formFields) {
      this.formFields = Objects.requireNonNull(formFields, "formFields");
      return this;
    }

    /**
     * Shows the pages without any action: no form is rendered and every POST is refused with 405.
     * Default false.
     *
     * @param readOnly whether to refuse every action
     * @return this builder
     */
    public Builder readOnly(boolean readOnly) {
      this.readOnly = readOnly;
      return this;
    }

    /**
     * Requires an access token (the standalone mode): a request is served only if its query has
     * {@code token=} this value, which the dashboard then keeps in an HTTP-only cookie and takes
     * out of the address bar, or if it carries that cookie. Default none: the container decides who
     * sees the pages.
     *
     * @param token at least 32 characters, for example {@link #newAccessToken()}
     * @return this builder
     * @throws IllegalArgumentException if the token is shorter than 32 characters
     */
    public Builder accessToken(String token) {
      Objects.requireNonNull(token, "token");
      if (token.length() < 32) {
        throw new IllegalArgumentException("an access token must have >= 32 characters");
      }
      this.accessToken = token;
      return this;
    }

    /**
     * Decides which requests may act (requeue, delete, resolve, pause...); the others see the pages
     * without forms, and their POSTs are refused with 403. Default: every request that may see the
     * pages. Under Spring Security, for example {@code req -> req.isUserInRole("ONCEONLY_ADMIN")}.
     *
     * @param mayAct true for a request that may act
     * @return this builder
     */
    public Builder mayAct(Predicate<HttpServletRequest> mayAct) {
      this.mayAct = Objects.requireNonNull(mayAct, "mayAct");
      return this;
    }

    /**
     * Gives the Receipts page a button that runs this reconciler once. Default none: no button.
     *
     * @param reconciler the application's reconciler, with its publisher
     * @return this builder
     */
    public Builder reconciler(Reconciler reconciler) {
      this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
      return this;
    }

    /**
     * Gives the overview's throughput chart the messages sent and handled per minute, counted by
     * this listener, which the application also registers with the store ({@link
     * dev.onceonly.OnceOnlyBuilder#listener}). Default none: the chart says it has no data for them
     * (the store keeps no row of a handled message), and shows the dead-lettered per minute from
     * the rows alone.
     *
     * @param throughput the listener registered with the store
     * @return this builder
     */
    public Builder throughput(Throughput throughput) {
      this.throughput = Objects.requireNonNull(throughput, "throughput");
      return this;
    }

    /**
     * Sets what the Audit page checks. Default {@code Audit.Rules.storeOnly(1 hour, 5 minutes)}.
     *
     * @param rules the rules
     * @return this builder
     */
    public Builder auditRules(Audit.Rules rules) {
      this.auditRules = Objects.requireNonNull(rules, "rules");
      return this;
    }

    /** {@return the servlet} */
    public DashboardServlet build() {
      return new DashboardServlet(this);
    }
  }
}
