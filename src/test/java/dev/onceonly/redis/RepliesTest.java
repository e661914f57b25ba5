package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reply shapes the embedded Redis 6.2 does not produce: RESP2 stream replies, and the third
 * element (deleted ids) that {@code XAUTOCLAIM} returns from Redis 7.0.
 */
class RepliesTest {
  @Test
  void readsBothShapesOfAStreamReply() {
    List<Object> entries =
        List.of(List.of(b("1-0"), List.of(b("scope"), b("s"))), Arrays.asList(b("2-0"), null));
    List<Replies.Entry> resp2 = Replies.readGroup(List.of(List.of(b("stream"), entries)));
    List<Replies.Entry> resp3 = Replies.readGroup(List.of(Map.entry(b("stream"), entries)));
    for (List<Replies.Entry> read : List.of(resp2, resp3)) {
      assertThat(read).extracting(Replies.Entry::id).containsExactly("1-0", "2-0");
      assertThat(read.get(0).fields()).hasSize(2);
      assertThat(read.get(1).fields()).as("an entry deleted while pending").isNull();
    }
    assertThat(Replies.readGroup(null)).isEmpty();
  }

  @Test
  void readsTheDeletedIdsOfRedis7() {
    Replies.Claimed six = Replies.claimed(List.of(b("0-0"), List.of(b("1-0"))));
    assertThat(six.deleted()).isEmpty();
    Replies.Claimed seven =
        Replies.claimed(List.of(b("5-0"), List.of(b("1-0")), List.of(b("2-0"), b("3-0"))));
    assertThat(seven.cursor()).isEqualTo("5-0");
    assertThat(seven.ids()).containsExactly("1-0");
    assertThat(seven.deleted()).containsExactly("2-0", "3-0");
  }

  @Test
  void refusesAReplyItDoesNotKnow() {
    assertThatThrownBy(() -> Replies.number(b("x"))).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Replies.text(1L)).isInstanceOf(IllegalStateException.class);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
