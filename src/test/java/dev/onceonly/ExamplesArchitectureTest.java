package dev.onceonly;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * (d) The tests that run the README's examples use the public API only, as a reader's code would:
 * an example that compiles only inside the library would teach what users cannot write.
 */
@AnalyzeClasses(packages = "dev.onceonly", importOptions = ImportOption.OnlyIncludeTests.class)
class ExamplesArchitectureTest {
  @ArchTest
  static final ArchRule readmeExamplesUseThePublicApiOnly =
      noClasses()
          .that()
          .haveNameMatching(".*\\.Readme[^.]*")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.onceonly.internal..");

  /** The Spring application whose code docs/spring.md shows uses the public API only. */
  @ArchTest
  static final ArchRule springExamplesUseThePublicApiOnly =
      noClasses()
          .that()
          .resideInAPackage("dev.onceonly.spring.app..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.onceonly.internal..");

  /** The tests README.md's "Testing your own code with it" points to are an application's. */
  @ArchTest
  static final ArchRule readmeTestingExamplesUseThePublicApiOnly =
      noClasses()
          .that()
          .resideInAPackage("dev.onceonly.readme..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.onceonly.internal..");

  /** The tests that run the java blocks of docs/*.md are an application's too. */
  @ArchTest
  static final ArchRule docsExamplesUseThePublicApiOnly =
      noClasses()
          .that()
          .resideInAPackage("dev.onceonly.docs..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.onceonly.internal..");
}
