package dev.onceonly.http;

import static dev.onceonly.http.HttpFilterContract.assertProblem;
import static dev.onceonly.http.HttpTestApp.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code scope-missing} answer names where the scope was looked for: the tenant header when the
 * scope comes from one ({@code onceonly.http.scope-header}), the principal otherwise. Through a
 * real Jetty server.
 */
class HttpScopeHeaderTest {
  @TempDir Path dir;

  @Test
  void aMissingTenantHeaderIsNamedInTheProblem() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (OnceOnly once = OnceOnly.openSqlite(dir.resolve("api.db"));
        HttpTestApp app =
            new HttpTestApp(
                HttpTestApp.paymentsRoute(once).scope(ScopeResolver.header("X-Tenant-Id")).build(),
                (id, amount, path) -> runs.incrementAndGet())) {
      HttpResponse<byte[]> r = app.send(app.post("/payments", "k-1", "alice", "{}"));

      assertProblem(r, 401, "scope-missing");
      assertThat(text(r)).contains("X-Tenant-Id").doesNotContain("principal");
      HttpResponse<byte[]> tenant =
          app.send(app.post("/payments", "k-1", null, "{}").header("X-Tenant-Id", "acme"));
      assertThat(tenant.statusCode()).isEqualTo(201);
      assertThat(runs).hasValue(1);
    }
  }

  @Test
  void aMissingPrincipalIsNamedInTheProblem() throws Exception {
    try (OnceOnly once = OnceOnly.openSqlite(dir.resolve("api.db"));
        HttpTestApp app =
            new HttpTestApp(HttpTestApp.paymentsRoute(once).build(), (id, amount, path) -> {})) {
      HttpResponse<byte[]> r = app.send(app.post("/payments", "k-1", null, "{}"));

      assertProblem(r, 401, "scope-missing");
      assertThat(text(r)).contains("authenticated principal");
    }
  }
}
