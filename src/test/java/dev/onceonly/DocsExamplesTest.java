package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.DocsExamples.Block;
import dev.onceonly.DocsExamples.Source;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of README.md and docs/*.md stands, as it is, in test code that runs
 * (see {@link DocsExamples}), so a reader who copies one copies code that compiled and ran here.
 * The checker itself is tested on edited copies of the real blocks: one changed token, a wrong
 * class named, an exemption without a reason, code that no test uses.
 */
class DocsExamplesTest {
  private static Map<String, Source> sources;
  private static List<Block> blocks;

  @BeforeAll
  static void read() throws IOException {
    sources =
        DocsExamples.sources(
            Path.of("src/test/java"),
            Set.of(DocsExamples.class.getName(), DocsExamplesTest.class.getName()));
    blocks = new ArrayList<>();
    List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    for (Path doc : docs) {
      blocks.addAll(DocsExamples.blocks(doc, Files.readString(doc, StandardCharsets.UTF_8)));
    }
  }

  /**
   * The blocks not backed yet (the file and the block's first line), each to be backed and taken
   * off this list; the test fails for any other block that is not backed, and for a block on this
   * list that is backed now.
   */
  static final Set<String> NOT_YET_BACKED = Set.of();

  @Test
  void everyJavaBlockOfTheDocsIsBackedByATestThatRuns() {
    List<String> problems = new ArrayList<>();
    List<String> nowBacked = new ArrayList<>();
    for (Block block : blocks) {
      Optional<String> problem = DocsExamples.problem(block, sources);
      boolean listed = NOT_YET_BACKED.contains(block.doc() + ": " + block.firstLine());
      if (problem.isPresent() && !listed) {
        problems.add(problem.get());
      } else if (problem.isEmpty() && listed) {
        nowBacked.add(block.doc() + ": " + block.firstLine());
      }
    }

    assertThat(blocks).hasSizeGreaterThan(30);
    assertThat(problems)
        .as(
            "%d of %d java blocks are not backed:%n%s%n%n%s",
            problems.size(), blocks.size(), String.join("\n", problems), DocsExamples.HOW_TO_BACK)
        .isEmpty();
    List<String> present = blocks.stream().map(b -> b.doc() + ": " + b.firstLine()).toList();
    assertThat(NOT_YET_BACKED)
        .as("entries of NOT_YET_BACKED that name no block any more: take them off")
        .allMatch(present::contains);
    assertThat(nowBacked)
        .as("backed now, take them off NOT_YET_BACKED:%n%s%n", String.join("\n", nowBacked))
        .isEmpty();
  }

  @Test
  void aBlockWithOneTokenChangedIsNoLongerBacked() {
    Random random = new Random(0xD0C5L);
    for (Block block : backed()) {
      List<String> code = new ArrayList<>(block.code());
      int line = nonBlankLine(code, random);
      code.set(line, code.get(line).replaceFirst("([A-Za-z0-9_]+)", "$1x"));
      Block edited =
          new Block(block.doc(), block.line(), code, block.marker(), block.markerValue());

      assertThat(DocsExamples.problem(edited, sources))
          .as("%s with line %d edited", block.where(), line + 1)
          .hasValueSatisfying(
              p -> assertThat(p).startsWith(block.where()).contains("is not backed"));
    }
  }

  @Test
  void aBlockRewrappedOrReindentedIsStillBacked() {
    Random random = new Random(0x1DE7L);
    for (Block block : backed()) {
      for (int trial = 0; trial < 5; trial++) {
        Block rewrapped =
            new Block(
                block.doc(),
                block.line(),
                rewrap(block.code(), random),
                block.marker(),
                block.markerValue());
        assertThat(DocsExamples.problem(rewrapped, sources))
            .as(rewrapped.code().toString())
            .isEmpty();
      }
    }
  }

  @Test
  void aMarkerNamingAnotherClassOrAnExemptionWithoutAReasonFails() {
    Block block = backed().get(0);
    Block elsewhere =
        new Block(
            block.doc(), block.line(), block.code(), "example", CanonicalizerTest.class.getName());
    Block nowhere =
        new Block(block.doc(), block.line(), block.code(), "example", "dev.onceonly.NoSuchTest");
    Block lazy = new Block(block.doc(), block.line(), List.of("x();"), "not an example", "");
    Block explained =
        new Block(
            block.doc(),
            block.line(),
            List.of("x();"),
            "not an example",
            "shows what not to write");

    assertThat(DocsExamples.problem(elsewhere, sources)).get().asString().contains("is not backed");
    assertThat(DocsExamples.problem(nowhere, sources))
        .get()
        .asString()
        .contains("dev.onceonly.NoSuchTest, which is not a test source");
    assertThat(DocsExamples.problem(lazy, sources)).get().asString().contains("without a reason");
    assertThat(DocsExamples.problem(explained, sources)).isEmpty();
  }

  @Test
  void codeThatNoTestRunsDoesNotBackABlock() {
    Block block = backed().get(0);
    Map<String, Source> unused = new LinkedHashMap<>();
    sources.forEach(
        (name, s) -> unused.put(name, new Source(s.path(), name, s.normalized(), false)));

    assertThat(DocsExamples.problem(block, unused)).get().asString().contains("which no test runs");
  }

  @Test
  void theBlocksAndTheirMarkersAreRead() {
    String markdown =
        "text\n\n<!-- example: dev.onceonly.ReadmeExampleTest -->\n\n   ```java\n   a();\n   ```\n"
            + "```java\nb();\n```\n";
    List<Block> read = DocsExamples.blocks(Path.of("x.md"), markdown);

    assertThat(read).hasSize(2);
    assertThat(read.get(0).line()).isEqualTo(5);
    assertThat(read.get(0).code()).containsExactly("   a();");
    assertThat(read.get(0).markerValue()).isEqualTo("dev.onceonly.ReadmeExampleTest");
    assertThat(read.get(1).marker()).isNull();
    assertThat(read.get(1).where()).isEqualTo("x.md:8");
  }

  /** The real blocks that are backed now, each checked apart. */
  private static List<Block> backed() {
    List<Block> backed =
        blocks.stream()
            .filter(b -> !"not an example".equals(b.marker()))
            .filter(b -> DocsExamples.problem(b, sources).isEmpty())
            .toList();
    assertThat(backed).isNotEmpty();
    return backed;
  }

  private static int nonBlankLine(List<String> code, Random random) {
    while (true) {
      int line = random.nextInt(code.size());
      if (code.get(line).matches(".*[A-Za-z0-9_].*")) {
        return line;
      }
    }
  }

  /** The code with line breaks and indentation added after random punctuation and removed. */
  private static List<String> rewrap(List<String> code, Random random) {
    StringBuilder out = new StringBuilder();
    String joined = String.join("\n", code);
    for (int i = 0; i < joined.length(); i++) {
      char c = joined.charAt(i);
      boolean blankLineNext = joined.startsWith("\n", i + 1) || joined.startsWith("\n", i - 1);
      if (c == '\n' && !blankLineNext && !inString(joined, i) && random.nextBoolean()) {
        out.append(' ');
        continue;
      }
      out.append(c);
      if ("(,.;{".indexOf(c) >= 0 && !inString(joined, i) && random.nextInt(4) == 0) {
        out.append('\n').append(" ".repeat(random.nextInt(12)));
      }
    }
    return out.toString().lines().toList();
  }

  /** Whether position {@code i} is inside a string literal or a line comment of its line. */
  private static boolean inString(String code, int i) {
    int start = code.lastIndexOf('\n', i - 1) + 1;
    String before = code.substring(start, i);
    return before.chars().filter(ch -> ch == '"').count() % 2 == 1 || before.contains("//");
  }
}
