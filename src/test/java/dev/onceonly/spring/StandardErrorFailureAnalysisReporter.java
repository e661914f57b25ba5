package dev.onceonly.spring;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalysisReporter;

/**
 * Prints Spring Boot's failure analysis to standard error as Boot's own reporter logs it. The
 * tests' logging goes to SLF4J's no-operation binding, which would swallow Boot's report; an
 * application with a logging back-end sees the same description and action. Registered in the
 * tests' META-INF/spring.factories.
 */
public final class StandardErrorFailureAnalysisReporter implements FailureAnalysisReporter {
  /** Creates the reporter; Spring Boot calls it. */
  public StandardErrorFailureAnalysisReporter() {}

  @Override
  public void report(FailureAnalysis analysis) {
    System.err.printf(
        "%n***************************%nAPPLICATION FAILED TO START%n***************************%n"
            + "%nDescription:%n%n%s%n%nAction:%n%n%s%n",
        analysis.getDescription(), analysis.getAction());
  }
}
