package dev.onceonly.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.CanonicalizationException;
import dev.onceonly.Canonicalizer;
import dev.onceonly.IntentKey;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads a stream entry written from a {@link StreamMessage}, refusing anything else with a {@link
 * MalformedMessageException} that says what is wrong. It checks the envelope only: whether the
 * scope, key and arguments are acceptable is for the stores to say. Immutable and thread-safe.
 */
public final class MessageDecoder {
  private static final Set<String> FIELDS =
      Set.of(
          StreamMessage.SCOPE,
          StreamMessage.KEY,
          StreamMessage.OPERATION,
          StreamMessage.ARGUMENTS,
          StreamMessage.TRACEPARENT);

  /** Room for the scope, key, operation and field names beside the arguments. */
  private static final int ENVELOPE_BYTES = 4096;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Canonicalizer canonicalizer;
  private final long maxEntryBytes;

  private MessageDecoder(Canonicalizer canonicalizer) {
    this.canonicalizer = canonicalizer;
    this.maxEntryBytes = (long) canonicalizer.maxInputBytes() + ENVELOPE_BYTES;
  }

  /**
   * Returns a decoder whose arguments must pass {@code canonicalizer}; a whole entry may be 4 KiB
   * larger than the canonicalizer's input limit.
   *
   * @param canonicalizer the canonicalizer, with its size and depth limits
   * @return the decoder
   */
  public static MessageDecoder of(Canonicalizer canonicalizer) {
    return new MessageDecoder(Objects.requireNonNull(canonicalizer, "canonicalizer"));
  }

  /** {@return the largest entry accepted, in bytes of field names and values together} */
  public long maxEntryBytes() {
    return maxEntryBytes;
  }

  /**
   * Decodes an entry.
   *
   * @param fieldsAndValues the entry's field names and values, alternating, as Redis returns them
   * @return the message, its arguments in canonical form
   * @throws MalformedMessageException if the entry is not a message of this transport
   */
  public StreamMessage decode(List<byte[]> fieldsAndValues) {
    Objects.requireNonNull(fieldsAndValues, "fieldsAndValues");
    if (fieldsAndValues.size() % 2 != 0) {
      throw new MalformedMessageException(
          MalformedMessageException.Problem.NOT_PAIRED,
          fieldsAndValues.size() + " names and values");
    }
    long size = 0;
    for (byte[] part : fieldsAndValues) {
      size += part == null ? 0 : part.length;
    }
    if (size > maxEntryBytes) {
      throw new MalformedMessageException(
          MalformedMessageException.Problem.TOO_LARGE, size + " bytes, more than " + maxEntryBytes);
    }
    Map<String, String> fields = new HashMap<>();
    for (int i = 0; i < fieldsAndValues.size(); i += 2) {
      String name = utf8(fieldsAndValues.get(i), "a field name");
      if (!FIELDS.contains(name)) {
        throw new MalformedMessageException(
            MalformedMessageException.Problem.UNKNOWN_FIELD, "\"" + name + "\"");
      }
      if (fields.put(name, utf8(fieldsAndValues.get(i + 1), "\"" + name + "\"")) != null) {
        throw new MalformedMessageException(
            MalformedMessageException.Problem.DUPLICATE_FIELD, "\"" + name + "\"");
      }
    }
    return new StreamMessage(
        IntentKey.of(required(fields, StreamMessage.SCOPE), required(fields, StreamMessage.KEY)),
        required(fields, StreamMessage.OPERATION),
        arguments(required(fields, StreamMessage.ARGUMENTS)),
        traceparent(fields.get(StreamMessage.TRACEPARENT)));
  }

  /** A traceparent that is not one is dropped: tracing never refuses a message. */
  private static String traceparent(String value) {
    return value != null && StreamMessage.TRACEPARENT_VALUE.matcher(value).matches() ? value : null;
  }

  private JsonNode arguments(String json) {
    try {
      return JSON.readTree(canonicalizer.canonicalString(json));
    } catch (CanonicalizationException e) {
      throw new MalformedMessageException(
          MalformedMessageException.Problem.BAD_ARGUMENTS, e.getMessage());
    } catch (JsonProcessingException e) {
      // Canonical text is JSON by construction; this would be a defect of the canonicalizer.
      throw new IllegalStateException("canonical arguments do not parse", e);
    }
  }

  private static String required(Map<String, String> fields, String name) {
    String value = fields.get(name);
    if (value == null) {
      throw new MalformedMessageException(
          MalformedMessageException.Problem.MISSING_FIELD, "\"" + name + "\"");
    }
    return value;
  }

  private static String utf8(byte[] bytes, String what) {
    if (bytes == null) {
      throw new MalformedMessageException(
          MalformedMessageException.Problem.MISSING_FIELD, what + " is null");
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new MalformedMessageException(
          MalformedMessageException.Problem.NOT_UTF8, what + " is not UTF-8");
    }
  }
}
