package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.SendResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * Values of Jackson 3 ({@code tools.jackson}), the Jackson of Spring Boot 4, reach the store as
 * their data, never as the bean view Jackson 2 would write of them ({@code {"array":false,...}}).
 * Each trial draws a random JSON tree, reads its text with Jackson 3, and sends the Jackson 3 tree
 * as a message payload, alone and nested in a map, and as a step's arguments, on a real SQLite
 * file. The reference is the same text read by Jackson 2 and canonicalized: the payloads received
 * after reopening the file are that, and the step's arguments are that request (a second step with
 * the Jackson 2 tree is {@code Repeated}, not a conflict). Text the canonicalizer refuses is
 * refused the same way through Jackson 3, and nothing is sent.
 */
class Jackson3ValuesProperties {
  @TempDir Path dir;

  private static final ObjectMapper PLAIN = new ObjectMapper();
  private static final JsonMapper JACKSON_3 = new JsonMapper();
  private static final Canonicalizer CANONICAL = Canonicalizer.defaults();

  @Test
  void aJackson3TreeIsStoredAsItsJson() {
    Trials.forAll(
        40,
        trial -> {
          String text = trial.input("json", PLAIN.writeValueAsString(trial.json().tree(4)));
          tools.jackson.databind.JsonNode jackson3 = JACKSON_3.readTree(text);
          JsonNode jackson2 = PLAIN.readTree(text);
          ObjectNode wrapped = JsonNodeFactory.instance.objectNode().set("inner", jackson2);
          String expected = canonical(jackson2);
          Path file = Files.createTempDirectory(dir, "db").resolve("onceonly.db");
          try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
            Map<String, Object> nested = new HashMap<>();
            nested.put("inner", jackson3);
            if (expected == null) {
              assertThat(catchThrowable(() -> once.queue().send("q", "alone", jackson3)))
                  .isInstanceOf(CanonicalizationException.class);
              return;
            }
            assertThat(once.queue().send("q", "alone", jackson3).status())
                .isEqualTo(SendResult.Status.SENT);
            assertThat(once.queue().send("q", "nested", nested).status())
                .isEqualTo(SendResult.Status.SENT);
            IntentKey key = IntentKey.of("u-1", "k-1");
            assertThat(once.receipts().execute(key, "make", jackson3, Integer.class, c -> 1))
                .isInstanceOf(Outcome.Created.class);
          }
          try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
            Map<String, String> payloads = new HashMap<>();
            for (Delivery d : once.queue().receive("q", 10, Duration.ofMinutes(5))) {
              payloads.put(d.lease().key(), canonical(d.payload()));
            }
            assertThat(payloads).isEqualTo(Map.of("alone", expected, "nested", canonical(wrapped)));
            IntentKey key = IntentKey.of("u-1", "k-1");
            Outcome<Integer> again =
                once.receipts()
                    .execute(
                        key,
                        "make",
                        jackson2,
                        Integer.class,
                        c -> {
                          throw new AssertionError("the effect ran again");
                        });
            assertThat(again).isInstanceOf(Outcome.Repeated.class);
          }
        });
  }

  @Test
  void otherJackson3ObjectsAreRefusedAndNothingIsSent() throws Exception {
    List<Object> notData =
        List.of(
            JACKSON_3, tools.jackson.databind.node.JsonNodeFactory.instance, JACKSON_3.reader());
    Path file = dir.resolve("onceonly.db");
    try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
      int i = 0;
      for (Object value : notData) {
        Map<String, Object> nested = new HashMap<>();
        nested.put("inner", value);
        String key = "k" + i;
        for (Object payload : List.of(value, nested)) {
          assertThat(catchThrowable(() -> once.queue().send("q", key, payload)))
              .as("%s", payload.getClass())
              .isInstanceOf(InvalidRequestException.class)
              .hasMessageContaining("Jackson 3");
        }
        i++;
      }
    }
    try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
      assertThat(once.queue().depth("q")).isZero();
    }
  }

  /** The canonical text of a tree, or null when the canonicalizer refuses it. */
  private static String canonical(JsonNode tree) {
    try {
      return CANONICAL.canonicalString(tree);
    } catch (CanonicalizationException e) {
      return null;
    }
  }
}
