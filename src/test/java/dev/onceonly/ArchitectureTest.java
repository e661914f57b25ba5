package dev.onceonly;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import dev.onceonly.sql.Dialect;
import java.util.Set;

/**
 * The package layout, kept true: one package per concern, the exported packages on top of the
 * public API only, and the optional libraries inside the integrations that need them.
 *
 * <p>The exported packages are {@code dev.onceonly}, {@code .queue}, {@code .external}, {@code
 * .redis}, {@code .spring}, {@code .maintenance}, {@code .sql}, {@code .testing} and {@code .cli};
 * the implementation lives in the {@code dev.onceonly.internal} subpackages, which the module does
 * not export. The implementation may depend on the API (it implements {@link ReceiptStore}, {@code
 * JobQueue}, {@code ExternalEffects} and uses their records); the API depends on the implementation
 * only where it is the factory or a delegate, listed in {@link #ALLOWED_INTO_INTERNAL}. Inside,
 * only {@code internal.dialect} tells the databases apart.
 */
@AnalyzeClasses(packages = "dev.onceonly", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  private static final String INTERNAL = "dev.onceonly.internal..";

  /**
   * The exported classes allowed to depend on internal ones, with their nested classes.
   *
   * <ul>
   *   <li>{@code OnceOnly}: the factory, which wires the stores, the queue and the claims.
   *   <li>{@code OnceOnlyBuilder}: its builder, which opens the database and the store's context.
   *   <li>{@code Canonicalizer}: delegates to the RFC 8785 writer in {@code internal.jcs}.
   *   <li>{@code SqliteWriteTurns}: hands out the turn-taking data source of {@code internal.db}.
   * </ul>
   */
  static final Set<String> ALLOWED_INTO_INTERNAL =
      Set.of(
          "dev.onceonly.OnceOnly",
          "dev.onceonly.OnceOnlyBuilder",
          "dev.onceonly.Canonicalizer",
          "dev.onceonly.sql.SqliteWriteTurns");

  private static final DescribedPredicate<JavaClass> ALLOWED =
      describe(
          "an allowed exception " + ALLOWED_INTO_INTERNAL,
          c -> ALLOWED_INTO_INTERNAL.contains(outermost(c).getName()));

  private static final DescribedPredicate<JavaClass> INTERNAL_CLASS =
      describe("internal", c -> c.getPackageName().startsWith("dev.onceonly.internal"));

  private static JavaClass outermost(JavaClass c) {
    JavaClass outer = c;
    while (outer.getEnclosingClass().isPresent()) {
      outer = outer.getEnclosingClass().get();
    }
    return outer;
  }

  /** One slice per package, so a cycle is reported between the packages it runs through. */
  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          return c.getPackageName().startsWith("dev.onceonly")
              ? SliceIdentifier.of(c.getPackageName())
              : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
          return "the packages of dev.onceonly";
        }
      };

  private static final DescribedPredicate<JavaClass> FACTORY =
      describe(
          "are OnceOnly, the factory, or its builder",
          c ->
              outermost(c).getName().equals("dev.onceonly.OnceOnly")
                  || outermost(c).getName().equals("dev.onceonly.OnceOnlyBuilder"));

  private static final DescribedPredicate<JavaClass> QUEUE_OR_CLAIMS =
      describe(
          "the queue, claims, maintenance and workflow APIs",
          c ->
              c.getPackageName().equals("dev.onceonly.queue")
                  || c.getPackageName().equals("dev.onceonly.workflow")
                  || c.getPackageName().equals("dev.onceonly.external")
                  || c.getPackageName().equals("dev.onceonly.maintenance"));

  /**
   * (a) No cycle among the packages, the internal ones included. Ignored, as the documented cases
   * of an API implemented inside, the factory and delegate edges that close a loop by design: the
   * allowed exceptions' edges into the implementation (which depends on the API it implements), and
   * {@link OnceOnly}'s edges to the queue, claims and maintenance APIs (it hands out the {@code
   * JobQueue}, {@code ExternalEffects}, {@code Maintenance} and {@code Workflows}, whose types use
   * root types such as {@link Effect} and {@link IntentKey}).
   */
  @ArchTest
  static final ArchRule packagesAreFreeOfCycles =
      SlicesRuleDefinition.slices()
          .assignedFrom(PACKAGES)
          .should()
          .beFreeOfCycles()
          .ignoreDependency(ALLOWED, INTERNAL_CLASS)
          .ignoreDependency(FACTORY, QUEUE_OR_CLAIMS);

  /**
   * (d) The dialect seam is the one place that tells the databases apart: no other internal class
   * names a {@link Dialect} constant, so a store cannot grow an {@code if (postgres)} branch, and
   * adding a database adds a class to {@code internal.dialect} instead of editing the stores.
   */
  @ArchTest
  static final ArchRule onlyTheDialectSeamTellsTheDatabasesApart =
      noClasses()
          .that()
          .resideInAPackage(INTERNAL)
          .and()
          .resideOutsideOfPackage("dev.onceonly.internal.dialect..")
          .should()
          .accessField(Dialect.class, "SQLITE")
          .orShould()
          .accessField(Dialect.class, "POSTGRESQL");

  /**
   * (a') The implementation never depends on the factory or its builder that wire it: the edges
   * ignored by (a) run one way only, so no class of the factory and an internal class form a loop.
   */
  @ArchTest
  static final ArchRule theImplementationDoesNotDependOnTheFactory =
      noClasses().that().resideInAPackage(INTERNAL).should().dependOnClassesThat(FACTORY);

  /** (b) Exported packages depend on the implementation only through the listed exceptions. */
  @ArchTest
  static final ArchRule exportedPackagesStayOutOfInternal =
      noClasses()
          .that()
          .resideOutsideOfPackage(INTERNAL)
          .and(DescribedPredicate.not(ALLOWED))
          .should()
          .dependOnClassesThat()
          .resideInAPackage(INTERNAL);

  /** (c) Jedis is for the Redis transport (and the demo's Redis mode) only. */
  @ArchTest
  static final ArchRule onlyTheRedisIntegrationUsesJedis =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.onceonly.redis..", "dev.onceonly.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("redis.clients..");

  /**
   * (c) cron-utils, optional, is named by one class only, so that a store without cron schedules
   * runs without it on the class path.
   */
  @ArchTest
  static final ArchRule onlyCronSlotsUsesCronUtils =
      noClasses()
          .that()
          .doNotHaveFullyQualifiedName("dev.onceonly.internal.queue.CronSlots")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("com.cronutils..");

  /** (c) picocli is for the command-line tool only. */
  @ArchTest
  static final ArchRule onlyTheCommandLineToolUsesPicocli =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.onceonly.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("picocli..");

  /**
   * (c) Spring is for the Spring Boot integration only: the core knows a caller's transaction only
   * through {@link CurrentTransaction}.
   */
  @ArchTest
  static final ArchRule onlyTheSpringIntegrationUsesSpring =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.onceonly.spring..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.springframework..");

  /**
   * (c) Jetty is the embedded server of {@code onceonly dashboard} only: an application mounts the
   * dashboard in its own container.
   */
  @ArchTest
  static final ArchRule onlyTheCommandLineToolUsesJetty =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.onceonly.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.eclipse.jetty..");

  /** (c) JUnit is for the testing kit only: the library runs without it. */
  @ArchTest
  static final ArchRule onlyTheTestingKitUsesJUnit =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.onceonly.testing..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.junit..");

  /**
   * (c) The Servlet API is for the HTTP filter, the dashboard (and the Spring wiring that registers
   * them) only: the core runs without a servlet container.
   */
  @ArchTest
  static final ArchRule onlyTheHttpFilterUsesTheServletApi =
      noClasses()
          .that()
          .resideOutsideOfPackages(
              "dev.onceonly.http..", "dev.onceonly.dashboard..", "dev.onceonly.spring..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("jakarta.servlet..");

  /**
   * (e) The events package depends on nothing else of the library, so that every part of it (the
   * core, the queue, the integrations) can publish there without a cycle.
   */
  @ArchTest
  static final ArchRule theEventsDependOnNothingElseOfTheLibrary =
      noClasses()
          .that()
          .resideInAPackage("dev.onceonly.events..")
          .should()
          .dependOnClassesThat(
              describe(
                  "of the library outside dev.onceonly.events",
                  c ->
                      c.getPackageName().startsWith("dev.onceonly")
                          && !c.getPackageName().startsWith("dev.onceonly.events")));

  /**
   * (c) Micrometer is for the metrics integration only (and the Spring auto-configuration that
   * registers it when the application has a registry).
   */
  @ArchTest
  static final ArchRule onlyTheMetricsIntegrationUsesMicrometer =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.onceonly.micrometer..", "dev.onceonly.spring..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.micrometer..");

  /**
   * (c) OpenTelemetry is for the tracing integration only (and the Spring auto-configuration that
   * registers it when the application has an {@code OpenTelemetry} bean).
   */
  @ArchTest
  static final ArchRule onlyTheTracingIntegrationUsesOpenTelemetry =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.onceonly.otel..", "dev.onceonly.spring..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.opentelemetry..");
}
