package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The product speaks of its own scenarios (the report workshop, the ticket desk, the queue
 * patterns), not of numbered chapters of some other text: a reader of the Javadoc, the CLI's
 * output, README.md or docs/ has never seen them. The word "seed" stays only where it means the
 * seed of a random generator ({@code -Donceonly.properties.seed}, {@code --seed}, "with seed 2").
 */
class WordingTest {
  /** Words that always name an outside chapter, whatever follows them. */
  private static final Pattern CHAPTER =
      Pattern.compile(
          "\\bseeds?\\s*0\\d\\d|\\bseeds?/|\\bseed-0\\d|#seed-|tutorials? (?:this|the) project"
              + "|tutorial chapters?|chapters? (?:this|the) project",
          Pattern.CASE_INSENSITIVE);

  /** Any form of the word "seed". */
  private static final Pattern SEED =
      Pattern.compile("\\bseed(?:s|ed)?\\b", Pattern.CASE_INSENSITIVE);

  /**
   * The contexts in which "seed" means a random generator's seed, tried at the word's position: a
   * property or option name ({@code .seed}, {@code --seed}), a number other than a three-digit
   * chapter ({@code seed 2}, {@code seed 20,000}), "seeded", a Java identifier ({@code long seed},
   * {@code seed()}, {@code @param seed}), and phrases naming what it seeds.
   */
  private static final Pattern RANDOM_SEED =
      Pattern.compile(
          "(?<=[.\\-])seed\\b"
              + "|seed\\s+[1-9]"
              + "|seeded\\b"
              + "|(?<=\\blong |@param |\\(|\\{@code )seed\\b"
              + "|seed\\s*[),;=(]"
              + "|seed\\s+of\\s+the\\s+(?:samples|jobs|random)"
              + "|seeds?\\s+and\\s+(?:try|trial|tries)"
              + "|(?<=\\b(?:fixed|base|random|its|same|default|from the|naming the|tests') )seeds?\\b",
          Pattern.CASE_INSENSITIVE);

  @Test
  void noChapterNumbersAndNoSeedOtherThanARandomOne() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : sources()) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      // A phrase may wrap: match on the text with its line breaks as spaces, same offsets.
      String flat = text.replace('\n', ' ').replace('\r', ' ');
      for (int at = 0; at < flat.length(); ) {
        Offence o = offence(flat, at);
        if (o == null) {
          break;
        }
        int line = 1 + (int) text.substring(0, o.start()).chars().filter(ch -> ch == '\n').count();
        String[] lines = text.split("\n", -1);
        found.add(file + ":" + line + ": " + o.why() + ": " + lines[line - 1].strip());
        at = o.end();
      }
    }
    assertThat(found).as("wording that names outside chapters").isEmpty();
  }

  @Test
  void theCheckTellsChaptersFromRandomSeeds() {
    assertThat(offence(" * Seed 000's producer: registers an intent")).isNotNull();
    assertThat(offence("the patterns of Spanner-style queues (seed 004) on plain SQL")).isNotNull();
    assertThat(offence("### Seed 004's patterns")).isNotNull();
    assertThat(offence("maps each one in [queue.md](queue.md#seed-004s-patterns)")).isNotNull();
    assertThat(offence("the tutorial this project comes from")).isNotNull();
    assertThat(offence("as the seeds/ folder shows")).isNotNull();
    assertThat(offence("like the seed does")).isNotNull();
    assertThat(offence("runs the whole of seed 000 on one file")).isNotNull();

    assertThat(offence("`-Donceonly.properties.seed=N` with `-Donceonly.properties.try=T`"))
        .isNull();
    assertThat(offence("-Donceonly.crash.seed=3")).isNull();
    assertThat(offence("(100 kills, 172 intents with seed 2)")).isNull();
    assertThat(offence("      names = \"--seed\",")).isNull();
    assertThat(offence("  long seed;")).isNull();
    assertThat(offence("generated from a fixed seed, the same on every run")).isNull();
    assertThat(offence("a failure names its seed and trial")).isNull();
    assertThat(offence("Seeded random sequences of calls")).isNull();
    assertThat(offence("description = \"seed of the samples (default: ${DEFAULT-VALUE})\""))
        .isNull();
  }

  /** Returns why a text names an outside chapter, or null when it does not. */
  static String offence(String text) {
    Offence o = offence(text, 0);
    return o == null ? null : o.why();
  }

  /** Where and why a text names an outside chapter. */
  record Offence(int start, int end, String why) {}

  /** Returns the first offence at or after {@code from}, or null. */
  static Offence offence(String text, int from) {
    Matcher chapter = CHAPTER.matcher(text);
    Offence first = null;
    if (chapter.find(from)) {
      first = new Offence(chapter.start(), chapter.end(), "\"" + chapter.group() + "\"");
    }
    Matcher seed = SEED.matcher(text);
    int at = from;
    while (seed.find(at) && (first == null || seed.start() < first.start())) {
      Matcher random = RANDOM_SEED.matcher(text).region(seed.start(), text.length());
      random.useTransparentBounds(true).useAnchoringBounds(false);
      if (!random.lookingAt()) {
        return new Offence(seed.start(), seed.end(), "\"" + seed.group() + "\" not a random seed");
      }
      at = seed.end();
    }
    return first;
  }

  /** The files a user reads: main sources and resources, README.md and docs/*.md. */
  private static List<Path> sources() throws IOException {
    List<Path> out = new ArrayList<>();
    for (String root :
        List.of("src/main/java", "src/main/resources", "src/main/resources-filtered")) {
      Path dir = Path.of(root);
      if (Files.isDirectory(dir)) {
        try (Stream<Path> files = Files.walk(dir)) {
          files.filter(Files::isRegularFile).sorted().forEach(out::add);
        }
      }
    }
    out.add(Path.of("README.md"));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    out.forEach(
        p -> {
          if (!Files.isReadable(p)) {
            throw new UncheckedIOException(new IOException("cannot read " + p));
          }
        });
    return out;
  }
}
