package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * The dead letters of a stream keep one hash field per intent, on a real redis-server: two intents
 * whose {@code scope/key} reads the same, or whose scopes the client would send as the same bytes,
 * are two fields; and a message whose scope, key or operation the client cannot send faithfully is
 * refused before anything reaches the stream.
 */
class RedisDeadLetterKeysTest {
  @TempDir static Path redisDir;
  private static EmbeddedRedis redis;

  private RedisClient client;
  private RedisStream stream;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start(redisDir);
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @BeforeEach
  void open(TestInfo info) {
    client = redis.client();
    stream =
        RedisStream.builder(client, info.getTestMethod().orElseThrow().getName())
            .maxLength(0)
            .build();
  }

  @AfterEach
  void close() {
    client.close();
  }

  private List<String> deadFields() {
    List<String> out = new ArrayList<>();
    Object reply = client.sendCommand(Protocol.Command.HKEYS, stream.name() + ":dead");
    for (Object field : Replies.list(reply)) {
      out.add(new String((byte[]) field, StandardCharsets.UTF_8));
    }
    out.sort(null);
    return out;
  }

  @Test
  void intentsWhoseScopeSlashKeyReadsTheSameAreTwoDeadLetters() {
    IntentKey slashInScope = IntentKey.of("a/b", "c");
    IntentKey slashInKey = IntentKey.of("a", "b/c");
    stream.markDead(slashInScope, "1-0");
    assertThat(stream.isDeadLettered(slashInKey)).isFalse();
    stream.markDead(slashInKey, "2-0");
    assertThat(deadFields()).containsExactly("a/b/c", "x:a@2f.b@@c");
    assertThat(stream.forgetDeadLetter(slashInScope)).isTrue();
    assertThat(stream.isDeadLettered(slashInKey)).isTrue();
    assertThat(deadFields()).containsExactly("a/b/c");
  }

  @Test
  void scopesTheClientWouldSendAsTheSameBytesAreTwoDeadLetters() {
    stream.markDead(IntentKey.of("t\uD800", "k"), "1-0");
    assertThat(stream.isDeadLettered(IntentKey.of("t\uDBFF", "k"))).isFalse();
    assertThat(stream.isDeadLettered(IntentKey.of("t?", "k"))).isFalse();
    assertThat(deadFields()).containsExactly("x:t@d800.@@k");
  }

  @Test
  void aMessageWithAnUnpairedSurrogateOrAControlCharacterIsNotAdded() {
    var args = JsonNodeFactory.instance.objectNode().put("v", 1);
    List<StreamMessage> bad =
        List.of(
            new StreamMessage(IntentKey.of("t\uD800", "k"), "change", args),
            new StreamMessage(IntentKey.of("t", "k\u0000"), "change", args),
            new StreamMessage(IntentKey.of("t", "k"), "change\u0007", args));
    List<String> fields = new ArrayList<>();
    for (StreamMessage m : bad) {
      Throwable thrown = catchThrowable(() -> stream.add(m));
      assertThat(thrown).isInstanceOf(InvalidRequestException.class);
      fields.add(((InvalidRequestException) thrown).field());
    }
    assertThat(fields).containsExactly("scope", "key", "operation");
    assertThat(Replies.number(client.sendCommand(Protocol.Command.EXISTS, stream.name()))).isZero();
  }
}
