package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.Db;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The dashboard's auto-configuration in a Boot application as users run one: embedded Tomcat on a
 * free port, a SQLite file through Boot's data source, Spring Security with HTTP Basic and two
 * users, {@code alice} who holds {@code ONCEONLY_OPERATOR} and {@code bob} who does not. Requests
 * are real HTTP; rows are read from the file through a fresh connection.
 */
class DashboardInApplicationTest {
  private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([A-Za-z0-9_-]+)\"");
  private static final Pattern SPRING_CSRF =
      Pattern.compile("name=\"_csrf\" value=\"([A-Za-z0-9_=+/-]+)\"");

  @TempDir Path dir;

  /**
   * Every request authenticated, and Spring Security's own CSRF check on for every path, the
   * dashboard's included: the dashboard's forms carry Spring's token besides their own value.
   */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableWebSecurity
  static class SecuredApplication {
    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
          .httpBasic(Customizer.withDefaults());
      return http.build();
    }

    /**
     * Hands any user the Spring Security CSRF token of their session, so that a test can send a
     * POST that passes Spring's check and reaches the dashboard's own.
     */
    @Bean
    ServletRegistrationBean<HttpServlet> springToken() {
      HttpServlet token =
          new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse res)
                throws IOException {
              Map<String, String> field = new SpringSecurityCsrfField().apply(req);
              res.setContentType("text/plain");
              res.getWriter()
                  .write(field.keySet().iterator().next() + "=" + field.values().iterator().next());
            }
          };
      return new ServletRegistrationBean<>(token, "/spring-token");
    }

    @Bean
    UserDetailsService users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("alice")
              .password("{noop}alice-pw")
              .authorities("ONCEONLY_OPERATOR")
              .build(),
          User.withUsername("bob").password("{noop}bob-pw").authorities("VIEWER").build());
    }
  }

  @Test
  void offByDefault() throws Exception {
    try (ConfigurableApplicationContext context = start(Map.of())) {
      Client alice = new Client(context, "alice");
      assertThat(alice.get("/onceonly/").statusCode()).isEqualTo(404);
      assertThat(alice.get("/ops/").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void onlyAUserWithTheAuthorityActsAndTheLogLineNamesThem() throws Exception {
    Map<String, String> on =
        Map.of("onceonly.dashboard.enabled", "true", "onceonly.dashboard.path", "/ops");
    try (ConfigurableApplicationContext context = start(on)) {
      deadLetter(context.getBean(OnceOnly.class), "m-1");
      List<LogRecord> log = new ArrayList<>();
      Logger jul = Logger.getLogger("dev.onceonly.dashboard");
      Handler handler = recorder(log);
      jul.addHandler(handler);
      try {
        assertThat(new Client(context, null).get("/ops/").statusCode())
            .as("Spring Security guards the pages")
            .isEqualTo(401);

        Client bob = new Client(context, "bob");
        HttpResponse<String> seen = bob.get("/ops/dead-letters");
        assertThat(seen.statusCode()).isEqualTo(200);
        assertThat(seen.body()).contains("m-1").doesNotContain("name=\"csrf\"");
        String[] bobs = bob.get("/spring-token").body().split("=", 2);
        HttpResponse<String> refused =
            bob.post(
                "/ops/dead-letters/requeue",
                Map.of("queue", "mail", "key", "m-1", "csrf", "A".repeat(43), bobs[0], bobs[1]));
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("nothing changed");
        assertThat(Db.count(file(), "SELECT COUNT(*) FROM onceonly_dead_letters")).isOne();
        assertThat(log).isEmpty();

        Client alice = new Client(context, "alice");
        HttpResponse<String> page = alice.get("/ops/dead-letters");
        Matcher csrf = CSRF.matcher(page.body());
        assertThat(csrf.find()).as(page.body()).isTrue();
        Matcher spring = SPRING_CSRF.matcher(page.body());
        assertThat(spring.find()).as("the form carries Spring Security's token").isTrue();
        assertThat(
                alice
                    .post(
                        "/ops/dead-letters/requeue",
                        Map.of("queue", "mail", "key", "m-1", "csrf", csrf.group(1)))
                    .statusCode())
            .as("Spring Security's check is on for the dashboard's path")
            .isEqualTo(403);
        assertThat(Db.count(file(), "SELECT COUNT(*) FROM onceonly_dead_letters")).isOne();
        HttpResponse<String> done =
            alice.post(
                "/ops/dead-letters/requeue",
                Map.of(
                    "queue",
                    "mail",
                    "key",
                    "m-1",
                    "csrf",
                    csrf.group(1),
                    "_csrf",
                    spring.group(1)));
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(done.body()).contains("Requeued");
      } finally {
        jul.removeHandler(handler);
      }
      assertThat(Db.count(file(), "SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
      assertThat(
              Db.count(file(), "SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'm-1'"))
          .isOne();
      assertThat(log)
          .singleElement()
          .satisfies(
              r -> {
                String line = java.text.MessageFormat.format(r.getMessage(), r.getParameters());
                assertThat(line).contains("/dead-letters/requeue by alice", "key=m-1");
              });
    }
  }

  @Test
  void readOnlyRefusesEvenTheAuthorisedUser() throws Exception {
    Map<String, String> on =
        Map.of("onceonly.dashboard.enabled", "true", "onceonly.dashboard.read-only", "true");
    try (ConfigurableApplicationContext context = start(on)) {
      deadLetter(context.getBean(OnceOnly.class), "m-1");
      Client alice = new Client(context, "alice");
      assertThat(alice.get("/onceonly/dead-letters").body())
          .contains("m-1")
          .doesNotContain("name=\"csrf\"");
      String[] token = alice.get("/spring-token").body().split("=", 2);
      assertThat(
              alice
                  .post(
                      "/onceonly/dead-letters/requeue",
                      Map.of("queue", "mail", "key", "m-1", token[0], token[1]))
                  .statusCode())
          .isEqualTo(405);
      assertThat(Db.count(file(), "SELECT COUNT(*) FROM onceonly_dead_letters")).isOne();
    }
  }

  @Test
  void aBadPathFailsTheStartNamingTheProperty() {
    for (String path : new String[] {"/ops/", "ops", "/", "/ops/*", "/a b"}) {
      assertThatThrownBy(
              () ->
                  start(
                          Map.of(
                              "onceonly.dashboard.enabled",
                              "true",
                              "onceonly.dashboard.path",
                              path))
                      .close())
          .as(path)
          .hasStackTraceContaining("onceonly.dashboard.path must be a path below the root");
    }
  }

  private Path file() {
    return dir.resolve("app.db");
  }

  private ConfigurableApplicationContext start(Map<String, String> more) {
    Map<String, Object> p = new HashMap<>(more);
    p.put("spring.datasource.url", SqliteSpringTransactionTest.url(file()));
    p.put("server.port", "0");
    p.put("server.address", "127.0.0.1");
    return new SpringApplicationBuilder(SecuredApplication.class)
        .web(WebApplicationType.SERVLET)
        .bannerMode(Banner.Mode.OFF)
        .properties(p)
        .run();
  }

  private static void deadLetter(OnceOnly once, String key) {
    once.queue().send(Message.of("mail", key, Map.of("to", "a")));
    List<Delivery> d = once.queue().receive("mail", 1, Duration.ofMinutes(1));
    once.queue().deadLetter(d.get(0).lease(), "smtp refused");
  }

  private static Handler recorder(List<LogRecord> into) {
    return new Handler() {
      @Override
      public void publish(LogRecord r) {
        synchronized (into) {
          into.add(r);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
  }

  /** A browser of one user: HTTP Basic on every request, cookies kept. */
  private static final class Client {
    private final HttpClient http =
        HttpClient.newBuilder()
            .cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private final String base;
    private final String user;

    Client(ConfigurableApplicationContext context, String user) {
      this.base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
      this.user = user;
    }

    HttpResponse<String> get(String path) throws Exception {
      return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, Map<String, String> fields) throws Exception {
      StringBuilder form = new StringBuilder();
      fields.forEach(
          (k, v) ->
              form.append(form.isEmpty() ? "" : "&")
                  .append(k)
                  .append('=')
                  .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
      return http.send(
          request(path)
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(form.toString()))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
      if (user != null) {
        String basic = user + ":" + user + "-pw";
        b.header(
            "Authorization",
            "Basic " + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
      }
      return b;
    }
  }
}
