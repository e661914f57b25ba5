package dev.onceonly.spring;

import dev.onceonly.http.HandlerTransaction;
import java.util.Objects;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs the HTTP filter's work in a Spring-managed transaction (propagation {@code REQUIRED}), for
 * {@link dev.onceonly.http.IdempotencyFilter.Builder#transactional}: the handler's
 * {@code @Transactional} methods join it, and so does the receipt, through {@link
 * SpringCurrentTransaction}. A runtime exception or error rolls it back, as Spring's rules say; so
 * does a checked exception of the work, which is then rethrown unwrapped. Thread-safe.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
public final class SpringHandlerTransaction implements HandlerTransaction {
  private final TransactionTemplate template;

  /**
   * Runs work in transactions of {@code manager}.
   *
   * @param manager the application's transaction manager, on the data source OnceOnly uses
   */
  public SpringHandlerTransaction(PlatformTransactionManager manager) {
    this.template = new TransactionTemplate(Objects.requireNonNull(manager, "manager"));
  }

  @Override
  public <T, X extends Exception> T inTransaction(Work<T, X> work) throws X {
    try {
      return template.execute(
          status -> {
            try {
              return work.run();
            } catch (RuntimeException | Error e) {
              throw e;
            } catch (Exception e) {
              throw new Checked(e);
            }
          });
    } catch (Checked c) {
      @SuppressWarnings("unchecked")
      X thrown = (X) c.getCause();
      throw thrown;
    }
  }

  /** Carries a checked exception of the work through the template, which rolls back for it. */
  private static final class Checked extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Checked(Exception cause) {
      super(cause);
    }
  }
}
