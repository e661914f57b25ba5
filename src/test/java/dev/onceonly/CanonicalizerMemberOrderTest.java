package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Members come out in UTF-16 code unit order (RFC 8785 section 3.2.3) for objects of every size,
 * nested ones included, from a tree and from text alike: names drawn from a small alphabet share
 * prefixes, differ only past their third unit, are prefixes of one another, end in U+0000, and mix
 * surrogate pairs with units above them (U+FFEE sorts after a surrogate, unlike the code point
 * order). The order is read back by parsing the output, and compared with {@link String#compareTo}.
 */
class CanonicalizerMemberOrderTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Name pieces: single units, and one surrogate pair (U+1F600). */
  private static final String[] PIECES = {
    "a", "b", "A", "0", "\u0000", "\u0001", "\u00e9", "\u4e00", "\uffee", "\ud83d\ude00"
  };

  @Test
  void objectsOfOneToFortyMembersAreWrittenInCodeUnitOrder() throws Exception {
    Canonicalizer canonicalizer = Canonicalizer.defaults();
    Random random = new Random(8785);
    for (int size = 1; size <= 40; size++) {
      for (int trial = 0; trial < 50; trial++) {
        ObjectNode tree = object(random, size, 2);
        byte[] fromTree = canonicalizer.canonicalize(tree);
        byte[] fromText = canonicalizer.canonicalize(MAPPER.writeValueAsString(tree));
        assertThat(new String(fromText, StandardCharsets.UTF_8))
            .as("text and tree, %d members", size)
            .isEqualTo(new String(fromTree, StandardCharsets.UTF_8));
        assertSorted(MAPPER.readTree(fromTree), size);
      }
    }
  }

  private static ObjectNode object(Random random, int size, int depth) {
    ObjectNode node = NODES.objectNode();
    for (int attempt = 0; node.size() < size && attempt < 20 * size; attempt++) {
      String name = name(random);
      if (node.has(name)) {
        continue;
      }
      if (depth > 0 && random.nextInt(6) == 0) {
        node.set(name, object(random, 1 + random.nextInt(20), depth - 1));
      } else {
        node.put(name, random.nextInt(1000));
      }
    }
    return node;
  }

  private static String name(Random random) {
    StringBuilder name = new StringBuilder();
    int pieces = random.nextInt(6);
    for (int i = 0; i < pieces; i++) {
      name.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return name.toString();
  }

  private static void assertSorted(JsonNode node, int size) {
    if (!node.isObject()) {
      return;
    }
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    List<String> sorted = new ArrayList<>(names);
    sorted.sort(String::compareTo);
    assertThat(names).as("member order of an object of %d members", size).isEqualTo(sorted);
    node.forEach(child -> assertSorted(child, size));
  }
}
