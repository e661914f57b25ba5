package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result is stored only if a repeated request gets back what the effect returned. Each trial
 * writes Java source for a dozen random result types (records and classes without {@code equals},
 * whose properties are plain, public, getter-only, {@code @JsonIgnore}d, transient, unreadable,
 * write-only, read-only, ignored by {@code @JsonIgnoreProperties}, or nested types and lists of
 * them), compiles and loads them, fills them with random values, and runs a step per value on a
 * real SQLite file. The reference is the generator's own knowledge of which properties Jackson
 * cannot bring back: a value is stored exactly when each of them holds its default, and then the
 * repeated request after reopening the file returns every field as generated; otherwise the step
 * fails with {@link UnstorableResultException}, leaving neither the effect's row nor a receipt.
 */
class ResultFidelityProperties {
  @TempDir Path dir;

  /** How one property of a generated type is declared, and whether its value survives JSON. */
  private enum Kind {
    PROPERTY(true),
    PUBLIC(true),
    GETTER_ONLY(true),
    TRANSIENT_WITH_ACCESSORS(true),
    IGNORED(false),
    TRANSIENT(false),
    NO_ACCESSOR(false),
    WRITE_ONLY(false),
    READ_ONLY(false),
    CLASS_IGNORED(false),
    NESTED(true),
    NESTED_LIST(true);

    final boolean survives;

    Kind(boolean survives) {
      this.survives = survives;
    }
  }

  private static final Kind[] SCALAR_KINDS = {
    Kind.PROPERTY,
    Kind.PUBLIC,
    Kind.GETTER_ONLY,
    Kind.TRANSIENT_WITH_ACCESSORS,
    Kind.IGNORED,
    Kind.TRANSIENT,
    Kind.NO_ACCESSOR,
    Kind.WRITE_ONLY,
    Kind.READ_ONLY,
    Kind.CLASS_IGNORED
  };

  /** A property: its name, kind, Java type ({@code int}, {@code String}) and nested type. */
  private record Prop(String name, Kind kind, String scalar, Shape nested) {
    String javaType() {
      return switch (kind) {
        case NESTED -> nested.name;
        case NESTED_LIST -> "java.util.List<" + nested.name + ">";
        default -> scalar;
      };
    }
  }

  /** A generated type. */
  private record Shape(String name, boolean record, List<Prop> props) {
    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(name).append(record ? " record(" : " class(");
      for (Prop p : props) {
        s.append(p.name).append(' ').append(p.kind).append(' ');
        s.append(p.nested == null ? p.scalar : p.nested.name).append(", ");
      }
      return s.append(')').toString();
    }
  }

  @Test
  void aResultIsStoredExactlyWhenEverythingTheCallerSawComesBack() {
    Trials.forAll(
        6,
        trial -> {
          SplittableRandom random = trial.random();
          List<Shape> shapes = shapes(random, 12);
          trial.input("types", shapes);
          ClassLoader loader = compile(shapes, dir.resolve("classes-" + random.nextInt(1 << 30)));
          Path file = Files.createTempDirectory(dir, "db").resolve("onceonly.db");
          businessTable(file);
          List<Object> values = new ArrayList<>();
          List<Shape> types = new ArrayList<>();
          for (int i = 0; i < 40; i++) {
            Shape shape = shapes.get(random.nextInt(shapes.size()));
            types.add(shape);
            values.add(value(shape, loader, random, 0));
          }
          trial.input("values", values.stream().map(v -> describe(v)).toList());
          try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
            for (int i = 0; i < values.size(); i++) {
              step(once, i, values.get(i), types.get(i));
            }
          }
          try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
            for (int i = 0; i < values.size(); i++) {
              repeat(once, i, values.get(i), types.get(i));
            }
          }
        });
  }

  private void step(OnceOnly once, int i, Object value, Shape shape) throws Exception {
    IntentKey key = IntentKey.of("u-1", "k-" + i);
    @SuppressWarnings("unchecked")
    Class<Object> type = (Class<Object>) value.getClass();
    Effect<Object, SQLException> effect =
        c -> {
          try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO effects(k) VALUES ('" + key.key() + "')");
          }
          return value;
        };
    if (survives(shape, value)) {
      Outcome<Object> first = once.receipts().execute(key, "make", Map.of("n", i), type, effect);
      assertThat(first).as("%s", describe(value)).isInstanceOf(Outcome.Created.class);
    } else {
      Throwable refused =
          catchThrowable(() -> once.receipts().execute(key, "make", Map.of("n", i), type, effect));
      assertThat(refused)
          .as("the step of %s", describe(value))
          .isInstanceOf(UnstorableResultException.class)
          .hasMessageContaining(type.getName());
    }
  }

  private void repeat(OnceOnly once, int i, Object value, Shape shape) throws Exception {
    IntentKey key = IntentKey.of("u-1", "k-" + i);
    @SuppressWarnings("unchecked")
    Class<Object> type = (Class<Object>) value.getClass();
    if (!survives(shape, value)) {
      assertThat(
              rows(once, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = ?", key.key()))
          .as("receipt of refused %s", describe(value))
          .isZero();
      assertThat(rows(once, "SELECT COUNT(*) FROM effects WHERE k = ?", key.key()))
          .as("effect of refused %s", describe(value))
          .isZero();
      return;
    }
    Outcome<Object> again =
        once.receipts()
            .execute(
                key,
                "make",
                Map.of("n", i),
                type,
                c -> {
                  throw new AssertionError("the effect ran again");
                });
    assertThat(again).isInstanceOf(Outcome.Repeated.class);
    Object back = again.toOptional().orElseThrow();
    assertThat(sameAsGenerated(shape, value, back))
        .as("repeated %s for created %s", describe(back), describe(value))
        .isTrue();
    assertThat(rows(once, "SELECT COUNT(*) FROM effects WHERE k = ?", key.key())).isOne();
  }

  private static long rows(OnceOnly once, String sql, String key) throws SQLException {
    return once.inTransaction(
        c -> {
          try (var ps = c.prepareStatement(sql)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  private static void businessTable(Path file) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE effects (k TEXT NOT NULL)");
    }
  }

  // ---- the generator

  private static List<Shape> shapes(SplittableRandom random, int count) {
    List<Shape> shapes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      boolean record = random.nextInt(4) == 0;
      boolean wellBehaved = i % 3 == 0;
      int n = 1 + random.nextInt(4);
      List<Prop> props = new ArrayList<>();
      for (int j = 0; j < n; j++) {
        Kind kind;
        if (!shapes.isEmpty() && random.nextInt(5) == 0) {
          kind = random.nextBoolean() ? Kind.NESTED : Kind.NESTED_LIST;
        } else if (record) {
          kind = wellBehaved || random.nextBoolean() ? Kind.PROPERTY : Kind.IGNORED;
        } else {
          do {
            kind = SCALAR_KINDS[random.nextInt(SCALAR_KINDS.length)];
          } while (wellBehaved && !kind.survives);
        }
        Shape nested =
            kind == Kind.NESTED || kind == Kind.NESTED_LIST
                ? shapes.get(random.nextInt(shapes.size()))
                : null;
        props.add(new Prop("f" + j, kind, random.nextBoolean() ? "int" : "String", nested));
      }
      shapes.add(new Shape("G" + i, record, props));
    }
    return shapes;
  }

  private static String source(Shape shape) {
    StringBuilder s = new StringBuilder("package gen;\n");
    s.append("import com.fasterxml.jackson.annotation.*;\n");
    if (shape.record) {
      s.append("public record ").append(shape.name).append('(');
      for (int j = 0; j < shape.props.size(); j++) {
        Prop p = shape.props.get(j);
        s.append(j == 0 ? "" : ", ")
            .append(p.kind == Kind.IGNORED ? "@JsonIgnore " : "")
            .append(p.javaType())
            .append(' ')
            .append(p.name);
      }
      return s.append(") {}\n").toString();
    }
    List<String> classIgnored =
        shape.props.stream()
            .filter(p -> p.kind == Kind.CLASS_IGNORED)
            .map(p -> '"' + p.name + '"')
            .toList();
    if (!classIgnored.isEmpty()) {
      s.append("@JsonIgnoreProperties({").append(String.join(",", classIgnored)).append("})\n");
    }
    s.append("public class ").append(shape.name).append(" {\n");
    for (Prop p : shape.props) {
      String t = p.javaType();
      String cap = "get" + Character.toUpperCase(p.name.charAt(0)) + p.name.substring(1);
      String set = "set" + cap.substring(3);
      switch (p.kind) {
        case PROPERTY -> {
          s.append("  private ").append(t).append(' ').append(p.name).append(";\n");
          getter(s, t, cap, p.name);
          s.append("  public void ").append(set).append('(').append(t).append(" v) { ");
          s.append(p.name).append(" = v; }\n");
        }
        case GETTER_ONLY -> {
          s.append("  private ").append(t).append(' ').append(p.name).append(";\n");
          getter(s, t, cap, p.name);
        }
        case TRANSIENT_WITH_ACCESSORS -> {
          s.append("  private transient ").append(t).append(' ').append(p.name).append(";\n");
          getter(s, t, cap, p.name);
          s.append("  public void ").append(set).append('(').append(t).append(" v) { ");
          s.append(p.name).append(" = v; }\n");
        }
        case PUBLIC, CLASS_IGNORED, NESTED, NESTED_LIST ->
            s.append("  public ").append(t).append(' ').append(p.name).append(";\n");
        case IGNORED ->
            s.append("  @JsonIgnore public ").append(t).append(' ').append(p.name).append(";\n");
        case TRANSIENT ->
            s.append("  public transient ").append(t).append(' ').append(p.name).append(";\n");
        case NO_ACCESSOR ->
            s.append("  private ").append(t).append(' ').append(p.name).append(";\n");
        case WRITE_ONLY, READ_ONLY ->
            s.append("  @JsonProperty(access = JsonProperty.Access.")
                .append(p.kind)
                .append(") public ")
                .append(t)
                .append(' ')
                .append(p.name)
                .append(";\n");
      }
    }
    return s.append("}\n").toString();
  }

  private static void getter(StringBuilder s, String type, String getter, String field) {
    s.append("  public ").append(type).append(' ').append(getter).append("() { return ");
    s.append(field).append("; }\n");
  }

  /** Writes, compiles and loads the shapes' classes. */
  private static ClassLoader compile(List<Shape> shapes, Path out)
      throws IOException, URISyntaxException {
    Path src = out.resolve("src/gen");
    Files.createDirectories(src);
    List<String> args = new ArrayList<>();
    args.add("-d");
    args.add(out.toString());
    args.add("-classpath");
    args.add(
        Path.of(JsonIgnore.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString());
    args.add("-proc:none");
    for (Shape shape : shapes) {
      Path java = src.resolve(shape.name + ".java");
      Files.writeString(java, source(shape));
      args.add(java.toString());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    var errors = new java.io.ByteArrayOutputStream();
    int rc = javac.run(null, null, errors, args.toArray(String[]::new));
    assertThat(rc).as("javac: %s", errors).isZero();
    return new URLClassLoader(
        new URL[] {out.toUri().toURL()}, ResultFidelityProperties.class.getClassLoader());
  }

  /** A random instance of {@code shape}: each property its default or a random value. */
  private static Object value(Shape shape, ClassLoader loader, SplittableRandom random, int depth)
      throws ReflectiveOperationException {
    Class<?> type = loader.loadClass("gen." + shape.name);
    Object[] values = new Object[shape.props.size()];
    for (int j = 0; j < values.length; j++) {
      values[j] = propertyValue(shape.props.get(j), loader, random, depth);
    }
    if (shape.record) {
      Constructor<?> canonical =
          type.getDeclaredConstructor(
              java.util.Arrays.stream(type.getRecordComponents())
                  .map(c -> c.getType())
                  .toArray(Class<?>[]::new));
      return canonical.newInstance(values);
    }
    Object value = type.getConstructor().newInstance();
    for (int j = 0; j < values.length; j++) {
      Field f = type.getDeclaredField(shape.props.get(j).name);
      f.setAccessible(true);
      f.set(value, values[j]);
    }
    return value;
  }

  private static Object propertyValue(
      Prop p, ClassLoader loader, SplittableRandom random, int depth)
      throws ReflectiveOperationException {
    boolean set = random.nextInt(3) != 0;
    switch (p.kind) {
      case NESTED:
        return set && depth < 3 ? value(p.nested, loader, random, depth + 1) : null;
      case NESTED_LIST:
        if (!set || depth >= 3) {
          return null;
        }
        List<Object> list = new ArrayList<>();
        for (int n = random.nextInt(3); n > 0; n--) {
          list.add(value(p.nested, loader, random, depth + 1));
        }
        return list;
      default:
        if (p.scalar.equals("int")) {
          return set ? 1 + random.nextInt(10_000) : 0;
        }
        return set ? "v" + random.nextInt(10_000) : null;
    }
  }

  // ---- the reference

  /**
   * Whether Jackson writes the value and every property it cannot bring back holds its default, at
   * every depth. Jackson refuses to write an object of a class (not a record) of which it writes no
   * property at all, unless the class bears a Jackson annotation ({@code @JsonIgnoreProperties}).
   */
  private static boolean survives(Shape shape, Object value) throws ReflectiveOperationException {
    if (!shape.record
        && shape.props.stream()
            .noneMatch(
                p -> p.kind.survives || p.kind == Kind.READ_ONLY || p.kind == Kind.CLASS_IGNORED)) {
      return false;
    }
    for (Prop p : shape.props) {
      Object v = read(value, p.name);
      if (!p.kind.survives && v != null && !v.equals(0)) {
        return false;
      }
      if (p.kind == Kind.NESTED && v != null && !survives(p.nested, v)) {
        return false;
      }
      if (p.kind == Kind.NESTED_LIST && v != null) {
        for (Object e : (List<?>) v) {
          if (!survives(p.nested, e)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /** Whether {@code back} holds, field by field and at every depth, what {@code value} holds. */
  private static boolean sameAsGenerated(Shape shape, Object value, Object back)
      throws ReflectiveOperationException {
    if (value == null || back == null) {
      return value == back;
    }
    for (Prop p : shape.props) {
      Object x = read(value, p.name);
      Object y = read(back, p.name);
      switch (p.kind) {
        case NESTED -> {
          if (!sameAsGenerated(p.nested, x, y)) {
            return false;
          }
        }
        case NESTED_LIST -> {
          if (x == null || y == null) {
            if (x != y) {
              return false;
            }
            continue;
          }
          List<?> a = (List<?>) x;
          List<?> b = (List<?>) y;
          if (a.size() != b.size()) {
            return false;
          }
          for (int i = 0; i < a.size(); i++) {
            if (!sameAsGenerated(p.nested, a.get(i), b.get(i))) {
              return false;
            }
          }
        }
        default -> {
          if (!Objects.equals(x, y)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static Object read(Object value, String field) throws ReflectiveOperationException {
    Field f = value.getClass().getDeclaredField(field);
    f.setAccessible(true);
    return f.get(value);
  }

  /** A value's fields, for messages. */
  private static String describe(Object value) {
    if (value == null || value instanceof Integer || value instanceof String) {
      return String.valueOf(value);
    }
    if (value instanceof List<?> list) {
      return list.stream().map(ResultFidelityProperties::describe).toList().toString();
    }
    StringBuilder s = new StringBuilder(value.getClass().getSimpleName()).append('{');
    for (Field f : value.getClass().getDeclaredFields()) {
      if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
        continue;
      }
      f.setAccessible(true);
      try {
        s.append(f.getName()).append('=').append(describe(f.get(value))).append(' ');
      } catch (IllegalAccessException e) {
        s.append(f.getName()).append("=? ");
      }
    }
    return s.append('}').toString();
  }
}
