package dev.onceonly.http;

import dev.onceonly.OnceOnly;
import java.nio.file.Path;
import java.time.Duration;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;

/** The plain-mode setup docs/http.md shows, compiled (and shown verbatim, see HttpDocsTest). */
final class HttpDocsExample {
  private HttpDocsExample() {}

  static IdempotencyFilter filter(Path file, ServletContextHandler context) {
    // ---- docs/http.md, plain mode ----
    OnceOnly once = OnceOnly.openSqlite(file);
    IdempotencyFilter filter =
        IdempotencyFilter.builder(once)
            .route(
                Route.builder("payments")
                    .path("/payments")
                    .keyRequired(true)
                    .lease(Duration.ofSeconds(30))
                    .build())
            .route(
                Route.builder("orders")
                    .path("/orders/*")
                    .methods("POST", "PATCH")
                    .afterCrash(Route.AfterCrash.RUN_AGAIN) // its handler is itself idempotent
                    .build())
            .scope(ScopeResolver.principal()) // the default: the authenticated user
            .build();
    // any servlet container; here Jetty, after the authentication filter
    context.addFilter(new FilterHolder(filter), "/*", null);
    // ---- end of the docs/http.md example ----
    return filter;
  }
}
