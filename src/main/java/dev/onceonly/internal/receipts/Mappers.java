package dev.onceonly.internal.receipts;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.Serializers;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZonedDateTime;
import java.util.List;

/**
 * The mapper OnceOnly uses when the application gives none, and what it makes of values of Jackson
 * 3 ({@code tools.jackson}), the Jackson that Spring Boot 4 brings.
 *
 * <p>The library writes JSON with Jackson 2 ({@code com.fasterxml.jackson}). Jackson 2 sees a
 * Jackson 3 {@code JsonNode} as a bean and writes its getters ({@code {"array":false,...}}) instead
 * of its data, so such a node is converted through its JSON text (which {@code toString()} is, in
 * Jackson 3 as in Jackson 2), without a dependency on Jackson 3; any other Jackson 3 object is
 * refused. Types are recognized by name, so that the library neither needs nor loads Jackson 3.
 */
public final class Mappers {
  private Mappers() {}

  /** Where Jackson 3 lives. */
  private static final String JACKSON_3 = "tools.jackson.";

  /** Jackson 3's tree node type, the one Jackson 3 type that converts. */
  private static final String JACKSON_3_NODE = "tools.jackson.databind.JsonNode";

  /** Reads a Jackson 3 node's text; a reader with default features is thread-safe. */
  private static final ObjectMapper PLAIN = new ObjectMapper();

  /**
   * Returns a new default mapper: Jackson 2 with {@code java.time} types ({@link JavaTimeModule})
   * written as ISO-8601 text, a zoned date-time with its zone id, and read back as written (not
   * moved to UTC), so that they come back equal, as a stored result must; and Jackson 3 trees
   * written as their data.
   */
  public static ObjectMapper defaults() {
    ObjectMapper mapper =
        new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .registerModule(jackson3())
            .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
            .enable(SerializationFeature.WRITE_DATES_WITH_ZONE_ID)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);
    // Text for java.time alone: WRITE_DATES_AS_TIMESTAMPS stays on, so that java.util.Date and
    // Calendar keep the epoch milliseconds a plain mapper writes, and with them the fingerprints
    // of requests that hold them.
    for (Class<?> type : JAVA_TIME_AS_TEXT) {
      mapper.configOverride(type).setFormat(JsonFormat.Value.forShape(JsonFormat.Shape.STRING));
    }
    return mapper;
  }

  /** The java.time types the time module would write as numbers or arrays without a format. */
  private static final List<Class<?>> JAVA_TIME_AS_TEXT =
      List.of(
          Instant.class,
          LocalDate.class,
          LocalDateTime.class,
          LocalTime.class,
          OffsetDateTime.class,
          OffsetTime.class,
          ZonedDateTime.class,
          Year.class,
          YearMonth.class,
          MonthDay.class);

  /** Whether {@code value} is an object of Jackson 3. */
  static boolean isJackson3(Object value) {
    return value != null && value.getClass().getName().startsWith(JACKSON_3);
  }

  /**
   * Returns a Jackson 3 tree node as the Jackson 2 tree of the same JSON.
   *
   * @throws IllegalArgumentException if {@code value} is a Jackson 3 object but not a tree node, or
   *     its text does not parse
   */
  static JsonNode fromJackson3(Object value) {
    if (!isJackson3Node(value.getClass())) {
      throw new IllegalArgumentException(
          "a "
              + value.getClass().getName()
              + " is Jackson 3's, not data; only its JsonNode converts");
    }
    try {
      return PLAIN.readTree(value.toString());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the Jackson 3 node's text is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static boolean isJackson3Node(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(JACKSON_3_NODE)) {
        return true;
      }
    }
    return false;
  }

  /** Writes Jackson 3 trees wherever they are nested, and refuses other Jackson 3 objects. */
  private static Module jackson3() {
    return new Module() {
      @Override
      public String getModuleName() {
        return "onceonly-jackson3";
      }

      @Override
      public Version version() {
        return Version.unknownVersion();
      }

      @Override
      public void setupModule(SetupContext context) {
        context.addSerializers(
            new Serializers.Base() {
              @Override
              public JsonSerializer<?> findSerializer(
                  SerializationConfig config, JavaType type, BeanDescription description) {
                return type.getRawClass().getName().startsWith(JACKSON_3)
                    ? Jackson3.INSTANCE
                    : null;
              }
            });
      }
    };
  }

  /** Writes a Jackson 3 tree as its data. */
  private static final class Jackson3 extends StdSerializer<Object> {
    private static final long serialVersionUID = 1L;
    static final Jackson3 INSTANCE = new Jackson3();

    private Jackson3() {
      super(Object.class);
    }

    @Override
    public void serialize(Object value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      JsonNode tree;
      try {
        tree = fromJackson3(value);
      } catch (IllegalArgumentException e) {
        throw JsonMappingException.from(gen, e.getMessage(), e);
      }
      gen.writeTree(tree);
    }
  }
}
