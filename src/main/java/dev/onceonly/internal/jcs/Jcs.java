package dev.onceonly.internal.jcs;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.CanonicalizationException;
import dev.onceonly.CanonicalizationException.Problem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The RFC 8785 (JSON Canonicalization Scheme) engine behind {@code dev.onceonly.Canonicalizer}.
 *
 * <p>Text is tokenized by Jackson's streaming parser, which already refuses what JSON forbids (NaN,
 * Infinity, bad tokens); this class adds the I-JSON checks (RFC 7493) that Jackson leaves open,
 * then writes the canonical form: members sorted by UTF-16 code units (RFC 8785 section 3.2.3),
 * ECMAScript numbers (3.2.2.3), minimal string escapes (3.2.2.2), UTF-8 output (3.2.4). Immutable
 * and thread-safe.
 */
public final class Jcs {
  private final int maxInputBytes;
  private final int maxDepth;
  private final int maxStringLength;
  private final JsonFactory factory;

  /**
   * Creates an engine with the given limits.
   *
   * @param maxInputBytes largest accepted input, and largest canonical output, in bytes
   * @param maxDepth deepest accepted nesting of arrays and objects
   * @param maxStringLength longest accepted string or member name, in UTF-16 code units
   */
  public Jcs(int maxInputBytes, int maxDepth, int maxStringLength) {
    this.maxInputBytes = maxInputBytes;
    this.maxDepth = maxDepth;
    this.maxStringLength = maxStringLength;
    // Our own checks give the typed problems; Jackson's limits only bound the work it does first.
    // No string, name or nesting within the input limit may trip them.
    StreamReadConstraints constraints =
        StreamReadConstraints.builder()
            .maxNestingDepth(saturatedIncrement(maxDepth))
            .maxStringLength(Math.max(maxInputBytes, maxStringLength))
            .maxNameLength(Math.max(maxInputBytes, maxStringLength))
            .maxNumberLength(Math.max(1000, maxStringLength))
            .build();
    this.factory =
        JsonFactory.builder()
            .streamReadConstraints(constraints)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .build();
  }

  private static int saturatedIncrement(int value) {
    return value == Integer.MAX_VALUE ? value : value + 1;
  }

  /** Canonicalizes UTF-8 JSON text. */
  public byte[] canonicalize(byte[] utf8) {
    checkInputSize(utf8.length);
    String json = decodeStrictly(utf8);
    ByteSink out = new ByteSink(json.length());
    parse(json, out);
    return checkOutput(out);
  }

  /** Canonicalizes JSON text. */
  public byte[] canonicalize(String json) {
    checkInputSize(json);
    ByteSink out = new ByteSink(json.length());
    parse(json, out);
    return checkOutput(out);
  }

  private void checkInputSize(String json) {
    if (json.length() > maxInputBytes) { // UTF-8 never takes fewer bytes than UTF-16 code units
      checkInputSize(StandardCharsets.UTF_8.encode(CharBuffer.wrap(json)).remaining());
    }
  }

  /** Parses one JSON value, refusing anything after it, and writes its canonical form. */
  private void parse(String json, ByteSink out) {
    try (JsonParser parser = factory.createParser(json)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new CanonicalizationException(Problem.EMPTY, "no JSON value in input", "");
      }
      new TextWriter(parser, out).value(first, 1);
      requireEnd(parser);
    } catch (StreamConstraintsException e) {
      throw new CanonicalizationException(Problem.TOO_LARGE, e.getOriginalMessage(), "");
    } catch (JsonProcessingException e) {
      throw syntaxError(json, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // reading from a String cannot fail this way
    }
  }

  /** After a complete value, anything but whitespace is trailing data, even if it is not JSON. */
  private static void requireEnd(JsonParser parser) throws IOException {
    JsonToken next;
    try {
      next = parser.nextToken();
    } catch (JsonProcessingException e) {
      throw trailingData(describe(e.getLocation()));
    }
    if (next != null) {
      throw trailingData(at(parser));
    }
  }

  private static CanonicalizationException trailingData(String position) {
    return new CanonicalizationException(
        Problem.TRAILING_DATA, "more input after the JSON value", position);
  }

  /**
   * Jackson refuses an escaped unpaired surrogate in a member name as a syntax error; I-JSON calls
   * it a lone surrogate. Surrogates in values reach {@link #badString} and never get here.
   */
  private static CanonicalizationException syntaxError(String json, JsonProcessingException e) {
    JsonLocation location = e.getLocation();
    String position = describe(location);
    long offset = location == null ? -1 : location.getCharOffset();
    int lone = offset < 0 ? -1 : SurrogateEscapes.find(json, (int) Math.min(offset, json.length()));
    if (lone >= 0) {
      return new CanonicalizationException(
          Problem.LONE_SURROGATE,
          "unpaired surrogate escape " + json.substring(lone, lone + 6) + " in member name",
          position);
    }
    return new CanonicalizationException(Problem.SYNTAX, e.getOriginalMessage(), position);
  }

  /** Canonicalizes a Jackson tree. */
  public byte[] canonicalize(JsonNode tree) {
    ByteSink out = new ByteSink(128);
    new TreeWriter(out, "").value(tree, 1);
    return checkOutput(out);
  }

  /**
   * Returns the digest of the canonical form of {@code {"arguments": arguments, "operation":
   * operation}}, hashed where it was written: the document is never built as a tree nor copied.
   * "arguments" sorts before "operation", so the members are written in that order. The limits
   * apply to the arguments as given, so they are accepted here exactly when {@link
   * #canonicalize(JsonNode)} accepts them.
   */
  public byte[] digestIntent(String operation, JsonNode arguments, MessageDigest digest) {
    return intent(operation, arguments).digest(digest);
  }

  /** As {@link #digestIntent(String, JsonNode, MessageDigest)}, with the arguments as text. */
  public byte[] digestIntent(String operation, String argumentsJson, MessageDigest digest) {
    return intent(operation, argumentsJson).digest(digest);
  }

  private ByteSink intent(String operation, JsonNode arguments) {
    checkOperation(operation);
    ByteSink out = new ByteSink(128);
    out.writeAscii(ARGUMENTS_MEMBER);
    new TreeWriter(out, "/arguments").value(arguments, 1);
    return finishIntent(out, operation);
  }

  private ByteSink intent(String operation, String argumentsJson) {
    checkOperation(operation);
    checkInputSize(argumentsJson);
    ByteSink out = new ByteSink(argumentsJson.length() + 64);
    out.writeAscii(ARGUMENTS_MEMBER);
    parse(argumentsJson, out);
    return finishIntent(out, operation);
  }

  private static final String ARGUMENTS_MEMBER = "{\"arguments\":";

  private void checkOperation(String operation) {
    if (badString(operation)) {
      throw stringError(operation, "operation");
    }
  }

  private ByteSink finishIntent(ByteSink out, String operation) {
    checkOutputSize(out.size() - ARGUMENTS_MEMBER.length());
    out.writeAscii(",\"operation\":");
    out.writeString(operation);
    out.write((byte) '}');
    return out;
  }

  private byte[] checkOutput(ByteSink out) {
    checkOutputSize(out.size());
    return out.toByteArray();
  }

  private void checkOutputSize(int bytes) {
    if (bytes > maxInputBytes) {
      throw new CanonicalizationException(
          Problem.TOO_LARGE, "canonical form has more than " + maxInputBytes + " bytes", "");
    }
  }

  private void checkInputSize(int bytes) {
    if (bytes > maxInputBytes) {
      throw new CanonicalizationException(
          Problem.TOO_LARGE, "input of " + bytes + " bytes exceeds " + maxInputBytes, "");
    }
  }

  private static String decodeStrictly(byte[] utf8) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(utf8);
    CharBuffer chars = CharBuffer.allocate(utf8.length);
    CoderResult result = decoder.decode(in, chars, true);
    if (result.isError()) {
      throw new CanonicalizationException(
          Problem.INVALID_UTF8,
          "malformed UTF-8 sequence of " + result.length() + " byte(s)",
          "byte offset " + in.position());
    }
    try {
      result = decoder.flush(chars);
      if (result.isError()) {
        result.throwException();
      }
    } catch (CharacterCodingException e) {
      throw new CanonicalizationException(
          Problem.INVALID_UTF8, "truncated UTF-8 sequence", "byte offset " + in.position());
    }
    chars.flip();
    return chars.toString();
  }

  /** The cheap test; the exception and its position are only built when it fails. */
  private boolean badString(String s) {
    return s.length() > maxStringLength || loneSurrogate(s) >= 0;
  }

  private CanonicalizationException stringError(String s, String position) {
    if (s.length() > maxStringLength) {
      return new CanonicalizationException(
          Problem.STRING_TOO_LONG,
          "string of " + s.length() + " chars exceeds " + maxStringLength,
          position);
    }
    return new CanonicalizationException(
        Problem.LONE_SURROGATE,
        String.format(
            Locale.ROOT, "unpaired surrogate U+%04X in string", (int) s.charAt(loneSurrogate(s))),
        position);
  }

  /** Returns the index of the first unpaired surrogate, or -1. */
  public static int loneSurrogate(String s) {
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < n
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }

  private static CanonicalizationException numberError(String text, String position) {
    return new CanonicalizationException(
        Problem.NUMBER_OUT_OF_RANGE,
        "number " + abbreviate(text) + " is not a finite double",
        position);
  }

  private CanonicalizationException depthError(String position) {
    return new CanonicalizationException(
        Problem.TOO_DEEP, "nesting deeper than " + maxDepth, position);
  }

  private static String abbreviate(String text) {
    return text.length() <= 40 ? text : text.substring(0, 37) + "...";
  }

  private static String at(JsonParser parser) {
    return describe(parser.currentTokenLocation());
  }

  private static String describe(JsonLocation location) {
    if (location == null) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "line %d, column %d (char offset %d)",
        location.getLineNr(),
        location.getColumnNr(),
        location.getCharOffset());
  }

  /**
   * A member waiting to be sorted: its name, where its value's bytes lie in the sink, and where it
   * was read (a JsonLocation for text, null for trees, which cannot hold duplicate names).
   */
  private record Member(String name, int start, int end, JsonLocation location) {}

  /** Sorts members by UTF-16 code units and writes them; reports the first duplicate name. */
  private static void writeObject(ByteSink out, int objectStart, List<Member> members) {
    Member[] sorted = members.toArray(new Member[0]);
    Arrays.sort(
        sorted, (a, b) -> a.name.compareTo(b.name)); // String order is UTF-16 code unit order
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i].name.equals(sorted[i - 1].name)) {
        Member later = sorted[i].start > sorted[i - 1].start ? sorted[i] : sorted[i - 1];
        throw new CanonicalizationException(
            Problem.DUPLICATE_NAME,
            "member name \"" + abbreviate(later.name) + "\" repeated",
            describe(later.location));
      }
    }
    byte[] values = out.copyRange(objectStart, out.size());
    out.truncate(objectStart);
    out.write((byte) '{');
    for (int i = 0; i < sorted.length; i++) {
      if (i > 0) {
        out.write((byte) ',');
      }
      Member m = sorted[i];
      out.writeString(m.name);
      out.write((byte) ':');
      out.write(values, m.start - objectStart, m.end - m.start);
    }
    out.write((byte) '}');
  }

  /** Objects with at most this many members are sorted by insertion; see TreeWriter. */
  private static final int INSERTION_SORT_MAX = 16;

  /** The low bits of a TreeWriter order slot, which hold a member's index: enough for 16. */
  private static final int INDEX_BITS = 4;

  private static final long INDEX_MASK = (1 << INDEX_BITS) - 1;

  /** Writes one value read from a streaming parser. */
  private final class TextWriter {
    private final JsonParser parser;
    private final ByteSink out;

    TextWriter(JsonParser parser, ByteSink out) {
      this.parser = parser;
      this.out = out;
    }

    void value(JsonToken token, int depth) throws IOException {
      switch (token) {
        case START_OBJECT -> object(depth);
        case START_ARRAY -> array(depth);
        case VALUE_STRING -> string(parser.getText());
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> number(token);
        case VALUE_TRUE -> out.writeAscii("true");
        case VALUE_FALSE -> out.writeAscii("false");
        case VALUE_NULL -> out.writeAscii("null");
        default ->
            throw new CanonicalizationException(
                Problem.SYNTAX, "unexpected token " + token, at(parser));
      }
    }

    private void string(String s) {
      if (s.length() > maxStringLength || out.writeString(s) >= 0) {
        throw stringError(s, at(parser));
      }
    }

    private void number(JsonToken token) throws IOException {
      if (token == JsonToken.VALUE_NUMBER_INT
          && parser.getNumberType() == JsonParser.NumberType.INT) {
        out.writeInt(parser.getIntValue());
        return;
      }
      // Jackson's fast parser is correctly rounded, like Double.parseDouble, and much faster;
      // CanonicalizerProperties checks the two agree, halfway cases included.
      double value = parser.getDoubleValue();
      if (!Double.isFinite(value)) {
        throw numberError(parser.getText(), at(parser));
      }
      EcmaNumbers.write(value, out);
    }

    private void array(int depth) throws IOException {
      if (depth > maxDepth) {
        throw depthError(at(parser));
      }
      out.write((byte) '[');
      JsonToken token = parser.nextToken();
      for (boolean first = true; token != JsonToken.END_ARRAY; token = parser.nextToken()) {
        if (!first) {
          out.write((byte) ',');
        }
        first = false;
        value(token, depth + 1);
      }
      out.write((byte) ']');
    }

    private void object(int depth) throws IOException {
      if (depth > maxDepth) {
        throw depthError(at(parser));
      }
      int start = out.size();
      List<Member> members = new ArrayList<>();
      for (JsonToken token = parser.nextToken();
          token != JsonToken.END_OBJECT;
          token = parser.nextToken()) {
        String name = parser.currentName();
        JsonLocation location = parser.currentTokenLocation();
        if (badString(name)) {
          throw stringError(name, describe(location));
        }
        int valueStart = out.size();
        value(parser.nextToken(), depth + 1);
        members.add(new Member(name, valueStart, out.size(), location));
      }
      writeObject(out, start, members);
    }
  }

  /**
   * Writes one value of a Jackson tree. Members are written in sorted order straight from the tree,
   * so nothing is copied. Positions are JSON Pointers, kept as raw segments per depth and rendered
   * only when something is refused.
   */
  private final class TreeWriter {
    private final ByteSink out;
    private final String root;
    private String[] names = new String[8];
    private int[] indexes = new int[8];

    /** The sorted members of the objects being written, innermost last; see sortMembers. */
    @SuppressWarnings("unchecked")
    private Map.Entry<String, JsonNode>[] entries = new Map.Entry[64];

    private int entryCount;

    /** The sorted order of the entries, at the same indexes; see sortMembers. */
    private long[] order = new long[64];

    /** Writes into {@code out}; pointers start with {@code root} ("" or "/arguments"). */
    TreeWriter(ByteSink out, String root) {
      this.out = out;
      this.root = root;
    }

    void value(JsonNode node, int depth) {
      if (node == null) {
        throw new CanonicalizationException(
            Problem.UNSUPPORTED_VALUE, "missing value (Java null)", pointer(depth));
      }
      switch (node.getNodeType()) {
        case OBJECT -> object(node, depth);
        case ARRAY -> array(node, depth);
        case STRING -> string(node.textValue(), depth);
        case NUMBER -> number(node, depth);
        case BOOLEAN -> out.writeAscii(node.booleanValue() ? "true" : "false");
        case NULL -> out.writeAscii("null");
        default ->
            throw new CanonicalizationException(
                Problem.UNSUPPORTED_VALUE,
                node.getNodeType() + " node has no JSON form",
                pointer(depth));
      }
    }

    private void string(String s, int depth) {
      if (s.length() > maxStringLength || out.writeString(s) >= 0) {
        throw stringError(s, pointer(depth));
      }
    }

    private void number(JsonNode node, int depth) {
      if (node.isInt()) {
        out.writeInt(node.intValue());
        return;
      }
      double value = node.doubleValue();
      if (!Double.isFinite(value)) {
        throw numberError(node.asText(), pointer(depth));
      }
      EcmaNumbers.write(value, out);
    }

    private void array(JsonNode node, int depth) {
      if (depth > maxDepth) {
        throw depthError(pointer(depth));
      }
      out.write((byte) '[');
      int n = node.size();
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          out.write((byte) ',');
        }
        step(depth + 1, null, i);
        value(node.get(i), depth + 1);
      }
      out.write((byte) ']');
    }

    private void object(JsonNode node, int depth) {
      if (depth > maxDepth) {
        throw depthError(pointer(depth));
      }
      int n = sortMembers(node);
      // The members sit in entries[from, from + n), for a small object in the order that
      // order[from, from + n) gives; nested objects use the slots above them.
      int from = entryCount - n;
      out.write((byte) '{');
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          out.write((byte) ',');
        }
        int index = n <= INSERTION_SORT_MAX ? (int) (order[from + i] & INDEX_MASK) : i;
        Map.Entry<String, JsonNode> member = entries[from + index];
        String name = member.getKey();
        step(depth + 1, name, 0);
        string(name, depth + 1);
        out.write((byte) ':');
        value(member.getValue(), depth + 1);
      }
      entryCount = from; // the slots are not cleared: the writer, and the arrays, live for one call
      out.write((byte) '}');
    }

    /**
     * Pushes the members of an object onto {@link #entries} and returns how many there are: a small
     * object's in the tree's order, with their sorted order in {@link #order}, a large one's sorted
     * in place. A tree's names are unique (a map's keys), so sorting them is all RFC 8785 3.2.3
     * needs; String order is UTF-16 code unit order. The entries carry the values, so no member is
     * looked up again by name. One pair of arrays serves the whole tree, as a stack, so no object
     * needs its own.
     *
     * <p>Most objects are small. For those, each member gets one long: its name's {@link
     * #prefixKey} above, its index among the members in the low {@link #INDEX_BITS} bits. An
     * insertion sort of these longs orders the members by prefix, moving no references (each
     * reference stored costs the garbage collector's write barrier); only the runs whose prefixes
     * tie are then ordered by {@code compareTo}.
     */
    private int sortMembers(JsonNode node) {
      int n = node.size();
      int from = entryCount;
      int end = from + n;
      if (end > entries.length) {
        int capacity = Math.max(entries.length * 2, end);
        entries = Arrays.copyOf(entries, capacity);
        order = Arrays.copyOf(order, capacity);
      }
      Map.Entry<String, JsonNode>[] e = entries;
      long[] o = order;
      int i = from;
      for (Map.Entry<String, JsonNode> member : node.properties()) {
        e[i++] = member;
      }
      if (n <= INSERTION_SORT_MAX) {
        for (i = 0; i < n; i++) {
          o[from + i] = (prefixKey(e[from + i].getKey()) << INDEX_BITS) | i;
        }
        for (i = from + 1; i < end; i++) {
          long member = o[i];
          int j = i - 1;
          for (; j >= from && o[j] > member; j--) {
            o[j + 1] = o[j];
          }
          o[j + 1] = member;
        }
        orderTies(from, end);
      } else {
        Arrays.sort(e, from, end, Map.Entry.comparingByKey()); // the entries, in place
      }
      entryCount = end;
      return n;
    }

    /**
     * Orders by name, with {@code compareTo}, each run of {@link #order}[from, end) whose prefix
     * keys are equal: the prefix sort left such a run in index order, which says nothing.
     */
    private void orderTies(int from, int end) {
      long[] o = order;
      for (int i = from + 1; i < end; i++) {
        if ((o[i] >>> INDEX_BITS) != (o[i - 1] >>> INDEX_BITS)) {
          continue;
        }
        long member = o[i];
        String name = entries[from + (int) (member & INDEX_MASK)].getKey();
        int j = i - 1;
        for (;
            j >= from
                && (o[j] >>> INDEX_BITS) == (member >>> INDEX_BITS)
                && entries[from + (int) (o[j] & INDEX_MASK)].getKey().compareTo(name) > 0;
            j--) {
          o[j + 1] = o[j];
        }
        o[j + 1] = member;
      }
    }

    /**
     * The first three UTF-16 code units of a name in one long, 16 bits each, a missing unit as 0.
     * If two keys differ, the names compare as their keys do: at the first unit where the keys
     * differ, either both names have a unit, or the name that has none is the shorter and a prefix
     * of the other. If the keys are equal, nothing is known, and the names must be compared.
     */
    private static long prefixKey(String name) {
      int n = name.length();
      long key = 0;
      for (int i = 0; i < 3; i++) {
        key = (key << 16) | (i < n ? name.charAt(i) : 0);
      }
      return key;
    }

    /** Records that the value at {@code depth} is member {@code name}, or element {@code index}. */
    private void step(int depth, String name, int index) {
      if (depth >= names.length) {
        names = Arrays.copyOf(names, depth * 2);
        indexes = Arrays.copyOf(indexes, depth * 2);
      }
      names[depth] = name;
      indexes[depth] = index;
    }

    /** RFC 6901: "" is the whole document; a member named "" is "/". */
    private String pointer(int depth) {
      StringBuilder pointer = new StringBuilder(root);
      for (int d = 2; d <= depth; d++) {
        pointer.append('/');
        if (names[d] == null) {
          pointer.append(indexes[d]);
        } else {
          pointer.append(names[d].replace("~", "~0").replace("/", "~1")); // RFC 6901 section 3
        }
      }
      return pointer.toString();
    }
  }
}
