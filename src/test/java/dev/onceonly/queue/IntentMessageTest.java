package dev.onceonly.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link IntentMessage#decode}: exactly the schema {@link IntentMessage#toJson()} writes. */
class IntentMessageTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void decodesWhatItEncodes() {
    IntentMessage m =
        new IntentMessage(
            IntentKey.of("u-1", "op-17"), "create_ticket", json("{\"subject\":\"x\",\"n\":[1,2]}"));

    assertThat(IntentMessage.decode(m.toJson())).isEqualTo(m);
    assertThat(m.messageKey()).isEqualTo("u-1/op-17");
    assertThat(m.toMessage("tickets").key()).isEqualTo("u-1/op-17");
  }

  @ParameterizedTest
  @ValueSource(strings = {"[]", "\"text\"", "17", "null", "true"})
  void refusesAPayloadThatIsNotAnObject(String payload) {
    assertRefused(json(payload), "must be a JSON object");
  }

  @Test
  void refusesAMissingPayload() {
    assertRefused(null, "must be a JSON object");
  }

  @Test
  void refusesAnUnknownMember() {
    assertRefused(
        json(
            "{\"scope\":\"u-1\",\"key\":\"op-17\",\"operation\":\"op\",\"arguments\":{},"
                + "\"priority\":1}"),
        "unknown member \"priority\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"scope", "key", "operation", "arguments"})
  void refusesAMissingMember(String missing) {
    ObjectNode node = (ObjectNode) valid();
    node.remove(missing);
    assertRefused(node, "missing member \"" + missing + "\"");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {"scope|17", "scope|null", "scope|[\"u-1\"]", "key|{}", "operation|true"})
  void refusesAMemberThatIsNotAString(String member, String value) {
    ObjectNode node = (ObjectNode) valid();
    node.set(member, json(value));
    assertRefused(node, "\"" + member + "\" must be a string");
  }

  private static JsonNode valid() {
    return json("{\"scope\":\"u-1\",\"key\":\"op-17\",\"operation\":\"op\",\"arguments\":{}}");
  }

  private static void assertRefused(JsonNode payload, String reason) {
    assertThatThrownBy(() -> IntentMessage.decode(payload))
        .isInstanceOfSatisfying(
            InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("payload"))
        .hasMessageContaining(reason);
  }

  private static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(text, e);
    }
  }
}
