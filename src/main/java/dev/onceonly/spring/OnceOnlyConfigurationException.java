package dev.onceonly.spring;

/**
 * The auto-configuration refuses the application's OnceOnly settings while the context starts: a
 * combination that cannot work (a SQLite data source that begins deferred transactions, the HTTP
 * filter's transactional mode without a transaction to join), or a value out of its bounds. The
 * message says what is wrong and what to do; Spring Boot's failure analysis prints the two apart
 * ({@link #problem()} as the description, {@link #action()} as the action) however deep the
 * exception is in the cause chain, for instance under the servlet container's start.
 */
public class OnceOnlyConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** What is wrong. */
  private final String problem;

  /** What to do about it. */
  private final String action;

  /**
   * Creates the exception.
   *
   * @param problem what is wrong, naming the setting
   * @param action what to do about it
   * @param cause the refusal this one explains, or {@code null}
   */
  public OnceOnlyConfigurationException(String problem, String action, Throwable cause) {
    super(problem + "; " + action, cause);
    this.problem = problem;
    this.action = action;
  }

  /** {@return what is wrong, naming the setting} */
  public String problem() {
    return problem;
  }

  /** {@return what to do about it} */
  public String action() {
    return action;
  }
}
