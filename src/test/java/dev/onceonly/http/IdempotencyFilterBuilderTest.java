package dev.onceonly.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad configuration is refused at build time, with a message naming the value and its bound. */
class IdempotencyFilterBuilderTest {
  @TempDir Path dir;

  @Test
  void routesAreChecked() {
    assertThatThrownBy(() -> Route.builder("Payments"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("route name must be a lowercase letter");
    assertThatThrownBy(() -> Route.builder("p").build())
        .hasMessage("route 'p' needs at least one path pattern");
    assertThatThrownBy(() -> Route.builder("p").path("payments"))
        .hasMessageContaining("path pattern must start with /");
    assertThatThrownBy(() -> Route.builder("p").path("/pay*"))
        .hasMessageContaining("may end in /* only");
    assertThatThrownBy(() -> Route.builder("p").path("/*/x"))
        .hasMessageContaining("may end in /* only");
    assertThatThrownBy(() -> Route.builder("p").methods())
        .hasMessage("methods must name at least one method");
    assertThatThrownBy(() -> Route.builder("p").methods("post"))
        .hasMessageContaining("method must be 1 to 16 uppercase letters");
    assertThatThrownBy(() -> Route.builder("p").lease(Duration.ZERO))
        .hasMessageContaining("lease must be > 0");
    assertThatThrownBy(() -> Route.builder("p").fingerprintHeaders(" "))
        .hasMessage("fingerprint header name must not be blank");
  }

  @Test
  void pathPatternsMatchExactlyOrByPrefix() {
    Route r = Route.builder("p").path("/payments").path("/refunds/*").build();
    assertThat(r.matches("POST", "/payments")).isTrue();
    assertThat(r.matches("POST", "/payments/1")).isFalse();
    assertThat(r.matches("POST", "/refunds")).isTrue();
    assertThat(r.matches("PATCH", "/refunds/7/lines")).isTrue();
    assertThat(r.matches("POST", "/refundsx")).isFalse();
    assertThat(r.matches("PUT", "/payments")).isFalse();
  }

  @Test
  void theFiltersBoundsAreChecked() {
    try (OnceOnly once = OnceOnly.openSqlite(dir.resolve("b.db"))) {
      IdempotencyFilter.Builder b = IdempotencyFilter.builder(once);
      assertThatThrownBy(b::build).hasMessage("an IdempotencyFilter needs at least one route");
      b.route(Route.builder("p").path("/p").build());
      assertThatThrownBy(() -> b.route(Route.builder("p").path("/q").build()))
          .hasMessage("route name 'p' is used twice");
      assertThatThrownBy(() -> b.missingScopeStatus(403))
          .hasMessage("missingScopeStatus must be 400 or 401, was 403");
      assertThatThrownBy(() -> b.maxResponseBytes(-1))
          .hasMessageStartingWith("maxResponseBytes must be from 0 to");
      assertThatThrownBy(() -> b.maxRequestBytes(Integer.MAX_VALUE))
          .hasMessageStartingWith("maxRequestBytes must be from 0 to");
      assertThatThrownBy(() -> b.maxKeyLength(0)).hasMessageContaining("maxKeyLength");
      assertThatThrownBy(() -> b.replayRetention(Duration.ZERO))
          .hasMessageContaining("replayRetention must be > 0");
      assertThatThrownBy(() -> b.replayCacheBytes(-1))
          .hasMessage("replayCacheBytes must be from 0 to 1 GiB (1073741824), was -1");
      assertThatThrownBy(() -> b.replayCacheBytes((1L << 30) + 1))
          .hasMessageStartingWith("replayCacheBytes must be from 0 to 1 GiB");
      assertThatThrownBy(() -> b.retryAfter(Duration.ofMillis(1500)))
          .hasMessageContaining("retryAfter must be whole seconds");
      assertThatThrownBy(() -> b.problemTypeBase("urn:x"))
          .hasMessageContaining("problemTypeBase must start with");
      assertThatThrownBy(() -> b.replayHeaders(""))
          .hasMessage("replay header name must not be blank");
      assertThat(b.build().transactional()).isFalse();
    }
  }
}
