package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A Boot web application on embedded Tomcat whose OnceOnly settings are refused at start-up: the
 * filter's registration needs the store, so the refusal happens while Tomcat starts, many causes
 * below "Unable to start embedded Tomcat". The failure analysis Boot prints names the reason and
 * what to do. The bad settings are generated: each kind of refusal, with values drawn at random.
 */
@ExtendWith(OutputCaptureExtension.class)
class OnceOnlyFailureAnalysisTest {
  @TempDir Path dir;

  /** A web application with the auto-configuration's filter on one route. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class WebApplication {}

  /** One refused start: the settings, and what the analysis must say. */
  record Refusal(String what, Map<String, String> settings, String reason, String action) {}

  @Test
  void eachRefusalIsAnalysedWithItsReasonAndAnAction(CapturedOutput output) {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (Refusal r : refusals(random)) {
      int from = output.length();
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("server.port", "0");
      p.put("spring.datasource.url", SqliteSpringTransactionTest.url(dir.resolve(r.what + ".db")));
      p.put("onceonly.http.routes[0].name", "payments");
      p.put("onceonly.http.routes[0].paths", "/payments");
      p.putAll(r.settings);
      assertThatThrownBy(
              () ->
                  new SpringApplicationBuilder(WebApplication.class)
                      .web(WebApplicationType.SERVLET)
                      .bannerMode(Banner.Mode.OFF)
                      .properties(p)
                      .run())
          .as("seed %d: %s", seed, r.what)
          .hasStackTraceContaining("Tomcat");
      String printed = output.toString().substring(from);
      assertThat(printed).as("seed %d: %s", seed, r.what).contains("APPLICATION FAILED TO START");
      String description =
          printed.substring(printed.indexOf("Description:"), printed.indexOf("Action:"));
      String action = printed.substring(printed.indexOf("Action:"));
      assertThat(description).as("seed %d: %s", seed, r.what).contains(r.reason);
      assertThat(action).as("seed %d: %s", seed, r.what).contains(r.action);
    }
  }

  private List<Refusal> refusals(Random random) {
    List<Refusal> out = new ArrayList<>();
    out.add(
        new Refusal(
            "validate",
            Map.of("onceonly.migrations", "validate"),
            "no OnceOnly schema",
            "onceonly.migrations=apply"));
    out.add(
        new Refusal(
            "deferred",
            Map.of(
                "spring.datasource.url",
                "jdbc:sqlite:" + dir.resolve("deferred.db") + "?busy_timeout=10000"),
            "begins DEFERRED transactions",
            "transaction_mode=IMMEDIATE"));
    int status = 402 + random.nextInt(198); // never 400 or 401
    out.add(
        new Refusal(
            "status",
            Map.of("onceonly.http.missing-scope-status", Integer.toString(status)),
            "missingScopeStatus must be 400 or 401, was " + status,
            "onceonly.http.missing-scope-status"));
    long seconds = 3601 + random.nextInt(100_000);
    out.add(
        new Refusal(
            "retry",
            Map.of("onceonly.http.retry-after", seconds + "s"),
            "retryAfter must be whole seconds from 1 to 3600",
            "onceonly.http.retry-after"));
    String scheme = List.of("ftp", "file", "urn", "mailto").get(random.nextInt(4));
    out.add(
        new Refusal(
            "problems",
            Map.of("onceonly.http.problem-type-base", scheme + "://example.com/p" + seconds + "/"),
            "problemTypeBase must start with https:// or http://",
            "onceonly.http.problem-type-base"));
    out.add(
        new Refusal(
            "join",
            Map.of("onceonly.join-transactions", "false"),
            "onceonly.http.transactional needs onceonly.join-transactions=true",
            "onceonly.http.transactional=false"));
    return out;
  }
}
