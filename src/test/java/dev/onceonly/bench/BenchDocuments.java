package dev.onceonly.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;

/**
 * Realistic argument documents for the benchmarks, the same on every run: a fixed seed, members in
 * insertion (not sorted) order, non-ASCII names, nested objects and arrays, doubles, integers and
 * strings that need escaping.
 */
final class BenchDocuments {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String[] NAMES = {
    "cliente",
    "país",
    "línea",
    "cantidad",
    "precio",
    "descuento",
    "notas",
    "etiquetas",
    "métricas",
    "señal",
    "größe",
    "名前",
    "数量",
    "ключ",
    "zeta",
    "Alpha",
    "beta_2",
    "id",
    "ok",
    "emoji😀"
  };
  private static final String[] WORDS = {
    "José",
    "Ñúñez",
    "España",
    "Zürich",
    "東京",
    "Москва",
    "café",
    "naïve",
    "line\nbreak",
    "tab\there",
    "\"quoted\"",
    "back\\slash",
    "ctrl\u0001",
    "plain",
    "ascii",
    "€100",
    "😀 ok"
  };

  private BenchDocuments() {}

  /** Returns the document named by a benchmark parameter: "small", "2KB" or "64KB". */
  static JsonNode of(String size) {
    return switch (size) {
      case "small" -> small();
      case "2KB" -> ofAtLeast(2 * 1024, 1);
      case "64KB" -> ofAtLeast(64 * 1024, 2);
      default -> throw new IllegalArgumentException("unknown document size: " + size);
    };
  }

  /** The README's example arguments. */
  static JsonNode small() {
    ObjectNode root = NODES.objectNode();
    root.putArray("muestras").add(10).add(20).add(30);
    return root;
  }

  /** Appends records to a batch until its compact JSON text reaches {@code bytes}. */
  static JsonNode ofAtLeast(int bytes, long seed) {
    Random random = new Random(seed);
    ObjectNode root = NODES.objectNode();
    root.put("lote", "lote-" + seed).put("versión", 3);
    ArrayNode records = root.putArray("registros");
    while (length(root) < bytes) {
      records.add(record(random, 3));
    }
    return root;
  }

  private static int length(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node).length;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode record(Random random, int depth) {
    ObjectNode record = NODES.objectNode();
    int members = 3 + random.nextInt(6);
    for (int i = 0; i < members; i++) {
      record.set(name(random, i), value(random, depth));
    }
    return record;
  }

  private static String name(Random random, int i) {
    String name = NAMES[random.nextInt(NAMES.length)];
    return i == 0 ? name : name + "_" + i; // unique within the record
  }

  private static JsonNode value(Random random, int depth) {
    int kind = random.nextInt(depth > 0 ? 8 : 6);
    return switch (kind) {
      case 0 -> NODES.numberNode(random.nextInt(100_000) - 50_000);
      case 1 -> NODES.numberNode(Math.round(random.nextDouble() * 100_000) / 100.0);
      case 2 -> NODES.numberNode(random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20));
      case 3 -> NODES.textNode(words(random));
      case 4 -> NODES.booleanNode(random.nextBoolean());
      case 5 -> random.nextInt(4) == 0 ? NODES.nullNode() : NODES.numberNode(random.nextLong());
      case 6 -> record(random, depth - 1);
      default -> array(random, depth - 1);
    };
  }

  private static ArrayNode array(Random random, int depth) {
    ArrayNode array = NODES.arrayNode();
    int size = random.nextInt(6);
    for (int i = 0; i < size; i++) {
      array.add(value(random, depth));
    }
    return array;
  }

  private static String words(Random random) {
    StringBuilder s = new StringBuilder();
    int n = 1 + random.nextInt(4);
    for (int i = 0; i < n; i++) {
      s.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return s.toString();
  }
}
