package dev.onceonly.internal.jcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.Canonicalizer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The stores' fingerprint (from canonical bytes) equals the public Canonicalizer's. */
class FingerprintsTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"muestras\":[10,20,30]}",
        "{\"b\":1.0,\"a\":[1e21,\"\\u00e9\\ud83d\\ude00\"],\"c\":{\"z\":null,\"y\":true}}",
        "[]",
        "\"text with \\\" and \\\\\""
      })
  void storesAndCanonicalizerAgree(String json) throws Exception {
    JsonNode tree = MAPPER.readTree(json);
    Canonicalizer jcs = Canonicalizer.defaults();
    for (String operation : new String[] {"make_report", "op\u00e9ration", "a\"b"}) {
      assertThat(Fingerprints.of(operation, jcs.canonicalize(tree)))
          .isEqualTo(jcs.fingerprint(operation, tree))
          .isEqualTo(jcs.fingerprint(operation, json));
    }
  }
}
