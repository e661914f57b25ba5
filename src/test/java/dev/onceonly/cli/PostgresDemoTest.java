package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code onceonly demo --jdbc-url jdbc:postgresql:...} on a schema of its own on the embedded
 * PostgreSQL server (the URL's {@code currentSchema}), and a server that is not there.
 */
class PostgresDemoTest extends DemoContract {
  PostgresContractDatabase db;

  @BeforeEach
  void createSchema() {
    db = PostgresContractDatabase.create();
  }

  @AfterEach
  void closePools() {
    db.close();
  }

  @Override
  ContractDatabase database() {
    return db;
  }

  @Override
  String[] target() {
    return new String[] {"--jdbc-url", db.url()};
  }

  @Test
  void anUnreachableServerIsOneLineWithoutThePassword() {
    String url = "jdbc:postgresql://127.0.0.1:" + PostgresCommandsTest.closedPort() + "/app";
    CliRun run = CliRun.of("demo", "--jdbc-url", url + "?user=demo&password=s3cret");
    assertThat(run.status()).as("%s", run).isEqualTo(4);
    assertThat(run.err())
        .startsWith("onceonly: cannot connect to " + url + "?user=demo&password=***: ")
        .doesNotContain("s3cret")
        .hasLineCount(1);
    assertThat(run.out()).doesNotContain("summary");
  }
}
