package dev.onceonly.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A fake external provider (think of an HTTP API that creates charges or tickets). It records every
 * request it received, with its downstream idempotency key, and every effect it applied. It can
 * deduplicate by the downstream key (then a repeated key returns the first result and applies
 * nothing), lose a response after applying, time out before or after applying, rate-limit with a
 * required wait, and refuse with an HTTP-like status.
 *
 * <p>With a log file, every request is appended to it as it arrives, so a child process can be the
 * client and the parent can read what the provider saw after killing it. Thread-safe.
 */
public final class FakeProvider {
  /** A fault to inject into the next call. */
  public enum Fault {
    /** Applies the effect, then the response is lost on the way back. */
    LOSE_RESPONSE,
    /** The client times out; the provider applies the effect anyway. */
    TIMEOUT_AFTER_APPLY,
    /** The client times out; the provider never got to apply it. */
    TIMEOUT_BEFORE_APPLY,
    /** HTTP 503 from a gateway: not forwarded, nothing applied. */
    UNAVAILABLE,
    /** HTTP 400. */
    INVALID,
    /** HTTP 403. */
    FORBIDDEN,
    /** HTTP 409. */
    VERSION_CONFLICT
  }

  /** One request as the provider received it, and what it answered. */
  public record Request(String downstreamKey, String operation, String body, String answer) {}

  /** No response reached the client: lost, or timed out. The client cannot know what happened. */
  public static final class NoResponse extends Exception {
    private static final long serialVersionUID = 1L;

    NoResponse(String message) {
      super(message);
    }
  }

  /** HTTP 429 with a required wait. Nothing was applied. */
  public static final class RateLimited extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Duration retryAfter;

    RateLimited(Duration retryAfter) {
      super("429 Too Many Requests, Retry-After " + retryAfter.toSeconds() + "s");
      this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
      return retryAfter;
    }
  }

  /** An HTTP error status that says nothing was applied. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    Refused(int status) {
      super("HTTP " + status);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  private final boolean deduplicates;
  private final Path log;
  private final List<Request> received = new ArrayList<>();
  private final Map<String, String> resultsByKey = new LinkedHashMap<>();
  private final Map<String, Integer> effectsByKey = new LinkedHashMap<>();
  private final Deque<Object> faults = new ArrayDeque<>();
  private int effects;
  private boolean replaying;

  private FakeProvider(boolean deduplicates, Path log) {
    this.deduplicates = deduplicates;
    this.log = log;
  }

  /** A provider that honours idempotency keys. */
  public static FakeProvider deduplicating() {
    return new FakeProvider(true, null);
  }

  /** A provider that ignores idempotency keys: every request it processes applies an effect. */
  public static FakeProvider notDeduplicating() {
    return new FakeProvider(false, null);
  }

  /** A provider whose requests are appended to {@code log}, and read back from it if present. */
  public static FakeProvider logged(Path log, boolean deduplicates) {
    FakeProvider p = new FakeProvider(deduplicates, log);
    if (Files.exists(log)) {
      p.replaying = true;
      try {
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
          String[] f = line.split("\t", 4);
          p.record(new Request(f[0], f[1], f[3], f[2]));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        p.replaying = false;
      }
    }
    return p;
  }

  /** Makes the next call fail with {@code fault}. Faults queue up in order. */
  public synchronized FakeProvider failNext(Fault fault) {
    faults.add(fault);
    return this;
  }

  /** Makes the next call answer 429 with a required wait. */
  public synchronized FakeProvider rateLimitNext(Duration retryAfter) {
    faults.add(retryAfter);
    return this;
  }

  /**
   * Receives a request: applies its effect (once per downstream key if deduplicating) and returns
   * the created resource's id, or fails as injected.
   */
  public synchronized String call(String downstreamKey, String operation, String body)
      throws NoResponse, RateLimited, Refused {
    Object fault = faults.poll();
    if (fault instanceof Duration wait) {
      record(new Request(downstreamKey, operation, body, "rate-limited"));
      throw new RateLimited(wait);
    }
    if (fault == Fault.TIMEOUT_BEFORE_APPLY) {
      record(new Request(downstreamKey, operation, body, "timed-out"));
      throw new NoResponse("read timed out");
    }
    int status = status((Fault) fault);
    if (status != 0) {
      record(new Request(downstreamKey, operation, body, "refused:" + status));
      throw new Refused(status);
    }
    String id = apply(downstreamKey, operation, body);
    if (fault == Fault.LOSE_RESPONSE) {
      throw new NoResponse("connection reset after sending");
    }
    if (fault == Fault.TIMEOUT_AFTER_APPLY) {
      throw new NoResponse("read timed out");
    }
    return id;
  }

  private static int status(Fault fault) {
    if (fault == null) {
      return 0;
    }
    switch (fault) {
      case UNAVAILABLE:
        return 503;
      case INVALID:
        return 400;
      case FORBIDDEN:
        return 403;
      case VERSION_CONFLICT:
        return 409;
      default:
        return 0;
    }
  }

  private String apply(String downstreamKey, String operation, String body) {
    String existing = deduplicates ? resultsByKey.get(downstreamKey) : null;
    if (existing != null) {
      record(new Request(downstreamKey, operation, body, "deduplicated:" + existing));
      return existing;
    }
    String id = "res-" + (effects + 1);
    record(new Request(downstreamKey, operation, body, "applied:" + id));
    return id;
  }

  private void record(Request r) {
    received.add(r);
    if (r.answer().startsWith("applied:")) {
      effects++;
      String id = r.answer().substring("applied:".length());
      resultsByKey.putIfAbsent(r.downstreamKey(), id);
      effectsByKey.merge(r.downstreamKey(), 1, Integer::sum);
    }
    if (log != null && !replaying) {
      String line =
          String.join("\t", r.downstreamKey(), r.operation(), r.answer(), r.body()) + "\n";
      try {
        Files.writeString(
            log,
            line,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Answers the reconciliation query "did you apply the request with this key?". */
  public synchronized Optional<String> lookup(String downstreamKey) {
    return Optional.ofNullable(resultsByKey.get(downstreamKey));
  }

  /** Returns how many effects were applied for a downstream key. */
  public synchronized int effects(String downstreamKey) {
    return effectsByKey.getOrDefault(downstreamKey, 0);
  }

  /** Returns how many requests arrived with a downstream key, applied or not. */
  public synchronized long received(String downstreamKey) {
    return received.stream().filter(r -> r.downstreamKey().equals(downstreamKey)).count();
  }

  /** Returns the effects applied per downstream key. */
  public synchronized Map<String, Integer> effectsByKey() {
    return Map.copyOf(effectsByKey);
  }

  /** Returns every request received, in order. */
  public synchronized List<Request> requests() {
    return List.copyOf(received);
  }
}
