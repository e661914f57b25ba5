package dev.onceonly.contract;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.PostgresContractDatabase;
import java.util.function.Consumer;

/** How the PostgreSQL subclasses of the {@link ContractSupport} suites get their schema. */
final class PostgresSchemas {
  private PostgresSchemas() {}

  /** Creates an empty schema for one test of {@code suite}, its pools closed after the test. */
  static PostgresContractDatabase create(ContractSupport suite) {
    PostgresContractDatabase pg = PostgresContractDatabase.create();
    suite.closeAfterwards(pg);
    return pg;
  }

  /** Opens an instance on a new pool of {@code pg}. */
  static OnceOnly open(
      PostgresContractDatabase pg, MutableClock clock, Consumer<OnceOnly.Builder> customize) {
    OnceOnly.Builder builder = pg.builder().clock(clock);
    customize.accept(builder);
    return builder.build();
  }
}
