package dev.onceonly.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.InstantSource;

/**
 * What the stores of one OnceOnly instance share: the database, its statements, the request checks,
 * the clock, the mapper and the retention settings.
 *
 * @param database runs transactions
 * @param requests validates and canonicalizes requests
 * @param clock the time source
 * @param mapper reads and writes results
 * @param resultRetention how long a result is returned
 * @param tombstoneRetention how much longer a fingerprint is kept after that
 * @param rejectionReasonChars bound on a rejection's reason
 * @param rejectionBodyBytes bound on a rejection's body excerpt
 * @param sql the statements, built for the table prefix
 */
public record Core(
    Database database,
    Requests requests,
    InstantSource clock,
    ObjectMapper mapper,
    Duration resultRetention,
    Duration tombstoneRetention,
    int rejectionReasonChars,
    int rejectionBodyBytes,
    Sql sql) {

  /** The statements, opaque outside this package. */
  public static final class Sql {
    final Statements statements;

    /** Builds every statement for a validated prefix. */
    public Sql(String prefix) {
      this.statements = new Statements(prefix);
    }
  }

  Statements statements() {
    return sql.statements;
  }

  JsonNode readTree(String json) {
    try {
      return mapper.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("stored JSON cannot be read back", e);
    }
  }
}
