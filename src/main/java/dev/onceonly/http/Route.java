package dev.onceonly.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which requests the filter guards, and how: methods and path patterns, whether a key is required,
 * the lease of a plain-mode claim and what a retry after a crash gets. Immutable; build it with
 * {@link #builder(String)}.
 */
public final class Route {
  /**
   * What a retry gets when an earlier request with its key stopped in the middle of its handler
   * (the process died) and the claim's lease ran out: plain mode only; in the transactional mode
   * the crash rolled everything back and the retry runs cleanly.
   */
  public enum AfterCrash {
    /**
     * 409 with the problem type {@code outcome-unknown} until an operator settles the key ({@code
     * onceonly unknown resolve}): the handler may have applied its effect. The default.
     */
    CONFLICT,
    /** Run the handler again: declare it only for a handler that is itself idempotent. */
    RUN_AGAIN
  }

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_.-]{0,63}");
  private static final Pattern METHOD = Pattern.compile("[A-Z]{1,16}");
  private static final Duration MAX_LEASE = Duration.ofDays(1);

  private final String name;
  private final Set<String> methods;
  private final List<String> paths;
  private final boolean keyRequired;
  private final Duration lease;
  private final AfterCrash afterCrash;
  private final List<String> fingerprintHeaders;

  private Route(Builder b) {
    name = b.name;
    methods = Set.copyOf(b.methods);
    paths = List.copyOf(b.paths);
    keyRequired = b.keyRequired;
    lease = b.lease;
    afterCrash = b.afterCrash;
    fingerprintHeaders = List.copyOf(b.fingerprintHeaders);
  }

  /**
   * Starts a route. Its name is part of the intent's operation ({@code http.<name>}), so keep it
   * stable across deployments.
   *
   * @param name a lowercase letter, then up to 63 of lowercase letters, digits and {@code _ . -}
   * @return the builder
   * @throws IllegalArgumentException if the name is not of that form
   */
  public static Builder builder(String name) {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "route name must be a lowercase letter, then up to 63 of [a-z0-9_.-], was '"
              + name
              + "'");
    }
    return new Builder(name);
  }

  /** {@return the route's name} */
  public String name() {
    return name;
  }

  /** {@return the operation the route's intents are stored under: {@code http.<name>}} */
  public String operation() {
    return "http." + name;
  }

  /** {@return the methods the route guards} */
  public Set<String> methods() {
    return methods;
  }

  /** {@return the path patterns} */
  public List<String> paths() {
    return paths;
  }

  /** {@return whether a request without a key is refused (400) instead of passed through} */
  public boolean keyRequired() {
    return keyRequired;
  }

  /** {@return how long a plain-mode claim holds the key while the handler runs} */
  public Duration lease() {
    return lease;
  }

  /** {@return what a retry gets after a crash in the handler} */
  public AfterCrash afterCrash() {
    return afterCrash;
  }

  /** {@return the request headers that are part of the fingerprint, lowercase} */
  public List<String> fingerprintHeaders() {
    return fingerprintHeaders;
  }

  /** Whether this route guards a request of {@code method} on {@code path}. */
  boolean matches(String method, String path) {
    if (!methods.contains(method)) {
      return false;
    }
    for (String p : paths) {
      if (p.endsWith("/*")
          ? path.equals(p.substring(0, p.length() - 2))
              || path.startsWith(p.substring(0, p.length() - 1))
          : path.equals(p)) {
        return true;
      }
    }
    return false;
  }

  /** Builds a {@link Route}. Not thread-safe; the built route is. */
  public static final class Builder {
    private final String name;
    private final List<String> methods = new ArrayList<>(List.of("POST", "PATCH"));
    private final List<String> paths = new ArrayList<>();
    private boolean keyRequired;
    private Duration lease = Duration.ofSeconds(30);
    private AfterCrash afterCrash = AfterCrash.CONFLICT;
    private final List<String> fingerprintHeaders = new ArrayList<>();

    private Builder(String name) {
      this.name = name;
    }

    /**
     * Sets the methods the route guards, replacing the default {@code POST} and {@code PATCH}.
     *
     * @param methods one or more uppercase method names
     * @return this builder
     * @throws IllegalArgumentException if none is given or one is not an uppercase token
     */
    public Builder methods(String... methods) {
      if (methods.length == 0) {
        throw new IllegalArgumentException("methods must name at least one method");
      }
      List<String> chosen = new ArrayList<>();
      for (String m : methods) {
        Objects.requireNonNull(m, "method");
        if (!METHOD.matcher(m).matches()) {
          throw new IllegalArgumentException(
              "method must be 1 to 16 uppercase letters, was '" + m + "'");
        }
        chosen.add(m);
      }
      this.methods.clear();
      this.methods.addAll(chosen);
      return this;
    }

    /**
     * Adds a path pattern, matched against the path inside the application that the container
     * dispatched the request to (its servlet path and path info: without the context path and the
     * query, decoded, without path parameters and with dot segments resolved, so every spelling
     * that reaches the same servlet path matches alike): an exact path ({@code /payments}), or a
     * prefix ending in {@code /*} ({@code /payments/*} matches {@code /payments} and everything
     * below it).
     *
     * @param pattern starts with {@code /}; {@code *} only as the last segment
     * @return this builder
     * @throws IllegalArgumentException if the pattern is not of that form
     */
    public Builder path(String pattern) {
      Objects.requireNonNull(pattern, "pattern");
      if (!pattern.startsWith("/")
          || pattern.indexOf('*') >= 0 && pattern.indexOf('*') != pattern.length() - 1
          || pattern.endsWith("*") && !pattern.endsWith("/*")) {
        throw new IllegalArgumentException(
            "path pattern must start with / and may end in /* only, was '" + pattern + "'");
      }
      paths.add(pattern);
      return this;
    }

    /**
     * Sets whether a request without an {@code Idempotency-Key} is refused with 400. Default false:
     * such a request passes through unguarded.
     *
     * @param required whether the key is required
     * @return this builder
     */
    public Builder keyRequired(boolean required) {
      this.keyRequired = required;
      return this;
    }

    /**
     * Sets how long a plain-mode claim holds the key while the handler runs; a handler that runs
     * longer lets a retry see the outcome as unknown. Default 30 seconds.
     *
     * @param lease positive, at most one day
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder lease(Duration lease) {
      Objects.requireNonNull(lease, "lease");
      if (lease.isNegative() || lease.isZero() || lease.compareTo(MAX_LEASE) > 0) {
        throw new IllegalArgumentException("lease must be > 0 and at most 1 day, was " + lease);
      }
      this.lease = lease;
      return this;
    }

    /**
     * Sets what a retry gets after a crash in the middle of the handler. Default {@link
     * AfterCrash#CONFLICT}.
     *
     * @param afterCrash the answer
     * @return this builder
     */
    public Builder afterCrash(AfterCrash afterCrash) {
      this.afterCrash = Objects.requireNonNull(afterCrash, "afterCrash");
      return this;
    }

    /**
     * Adds request headers whose values are part of the fingerprint (for example {@code
     * Content-Type} or an API version header): a retry with other values is refused with 422.
     *
     * @param names header names, case-insensitive
     * @return this builder
     * @throws IllegalArgumentException if a name is blank
     */
    public Builder fingerprintHeaders(String... names) {
      for (String n : names) {
        Objects.requireNonNull(n, "header name");
        if (n.isBlank()) {
          throw new IllegalArgumentException("fingerprint header name must not be blank");
        }
        fingerprintHeaders.add(n.toLowerCase(Locale.ROOT));
      }
      return this;
    }

    /**
     * Builds the route.
     *
     * @return the route
     * @throws IllegalArgumentException if no path pattern was added
     */
    public Route build() {
      if (paths.isEmpty()) {
        throw new IllegalArgumentException("route '" + name + "' needs at least one path pattern");
      }
      return new Route(this);
    }
  }
}
