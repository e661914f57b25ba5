package dev.onceonly;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the test code behind every {@code ```java} block of the documentation. A block is backed
 * when its code stands in a test source that runs: a class with tests, or a class such a class
 * uses, directly or through others. Indentation and line breaks do not count (the docs and the
 * formatter wrap differently); every token and comment does. A comment on the line before the fence
 * may name the class that holds it ({@code <!-- example: dev.onceonly.ReadmeExampleTest -->}), or
 * say why the block is not code to run ({@code <!-- not an example: the reason -->}).
 */
final class DocsExamples {
  static final String HOW_TO_BACK =
      "Back it: put the block's code as it is (indentation and line breaks may differ, every token"
          + " and comment must match) in a test under src/test/java that runs it and asserts its"
          + " effect on rows, or in a class such a test uses, and name that class on the line"
          + " before the fence: <!-- example: dev.onceonly.SomeTest -->. A block that is not code"
          + " to run says why there: <!-- not an example: the reason -->.";

  private static final Pattern FENCE = Pattern.compile("^\\s*```java\\s*$");
  private static final Pattern CLOSE = Pattern.compile("^\\s*```\\s*$");
  private static final Pattern MARKER =
      Pattern.compile("^\\s*<!--\\s*(example|not an example):\\s*(.*?)\\s*-->\\s*$");
  private static final Pattern TEST_ANNOTATION =
      Pattern.compile("@(Test|ParameterizedTest|RepeatedTest|TestFactory|ArchTest|Property)\\b");
  private static final String TEXT_BLOCK = "\"\"\"";
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

  private DocsExamples() {}

  /**
   * One {@code ```java} block of a markdown file.
   *
   * @param doc the markdown file
   * @param line the line of its opening fence, from 1
   * @param code the lines between the fences
   * @param marker {@code example} or {@code not an example}, or null without a comment
   * @param markerValue the class named, or the reason given
   */
  record Block(Path doc, int line, List<String> code, String marker, String markerValue) {
    String where() {
      return doc + ":" + line;
    }

    String firstLine() {
      return code.stream().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
    }
  }

  /** A test source file, its code normalized and whether it runs under a test. */
  record Source(Path path, String className, Normalized normalized, boolean runs) {}

  /** The {@code ```java} blocks of {@code markdown}, read as the file {@code doc}. */
  static List<Block> blocks(Path doc, String markdown) {
    List<String> lines = markdown.lines().toList();
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!FENCE.matcher(lines.get(i)).matches()) {
        continue;
      }
      int open = i;
      List<String> code = new ArrayList<>();
      for (i++; i < lines.size() && !CLOSE.matcher(lines.get(i)).matches(); i++) {
        code.add(lines.get(i));
      }
      Matcher marker = MARKER.matcher(previousNonBlank(lines, open));
      blocks.add(
          marker.matches()
              ? new Block(doc, open + 1, code, marker.group(1), marker.group(2))
              : new Block(doc, open + 1, code, null, null));
    }
    return blocks;
  }

  private static String previousNonBlank(List<String> lines, int index) {
    for (int i = index - 1; i >= 0; i--) {
      if (!lines.get(i).isBlank()) {
        return lines.get(i);
      }
    }
    return "";
  }

  /**
   * Code with its whitespace taken out, but for one space between two words and the end of each
   * line comment, so that indentation and where a line is broken do not count; {@code comment}
   * marks the characters that are in a comment, so that code does not match a comment's words.
   */
  record Normalized(String text, BitSet comment) {}

  private enum Lexing {
    CODE,
    LINE_COMMENT,
    BLOCK_COMMENT,
    STRING,
    CHAR,
    TEXT_BLOCK
  }

  /** {@code code} with its whitespace normalized and its comments marked. */
  static Normalized normalize(String code) {
    StringBuilder out = new StringBuilder(code.length());
    BitSet comment = new BitSet();
    Lexing state = Lexing.CODE;
    boolean space = false;
    int i = 0;
    while (i < code.length()) {
      char c = code.charAt(i);
      if (state == Lexing.LINE_COMMENT && c == '\n') {
        comment.set(out.length());
        out.append('\n'); // a line comment's end is where the code goes on
        state = Lexing.CODE;
        space = false;
        i++;
      } else if (Character.isWhitespace(c)) {
        space = true;
        i++;
      } else {
        if (space && out.length() > 0 && isWord(out.charAt(out.length() - 1)) && isWord(c)) {
          out.append(' ');
        }
        space = false;
        Lexing after = after(state, code, i);
        int end = Math.min(i + width(state, after, code, i), code.length());
        if (isComment(state) || isComment(after)) {
          comment.set(out.length(), out.length() + end - i);
        }
        out.append(code, i, end);
        state = after;
        i = end;
      }
    }
    return new Normalized(out.toString(), comment);
  }

  private static boolean isComment(Lexing state) {
    return state == Lexing.LINE_COMMENT || state == Lexing.BLOCK_COMMENT;
  }

  /** The state after the token at {@code i}, which may start or end a comment or literal. */
  private static Lexing after(Lexing state, String code, int i) {
    char c = code.charAt(i);
    return switch (state) {
      case CODE -> {
        if (code.startsWith("//", i)) {
          yield Lexing.LINE_COMMENT;
        } else if (code.startsWith("/*", i)) {
          yield Lexing.BLOCK_COMMENT;
        } else if (code.startsWith(TEXT_BLOCK, i)) {
          yield Lexing.TEXT_BLOCK;
        }
        yield c == '"' ? Lexing.STRING : c == '\'' ? Lexing.CHAR : Lexing.CODE;
      }
      case BLOCK_COMMENT -> code.startsWith("*/", i) ? Lexing.CODE : state;
      case STRING -> c == '"' ? Lexing.CODE : state;
      case CHAR -> c == '\'' ? Lexing.CODE : state;
      case TEXT_BLOCK -> code.startsWith(TEXT_BLOCK, i) ? Lexing.CODE : state;
      case LINE_COMMENT -> state;
    };
  }

  /** How many characters the token at {@code i} takes: an escape, a delimiter, or one. */
  private static int width(Lexing state, Lexing after, String code, int i) {
    if (state != Lexing.CODE && state != Lexing.LINE_COMMENT && code.charAt(i) == '\\') {
      return state == Lexing.BLOCK_COMMENT ? 1 : 2;
    }
    if (state == Lexing.TEXT_BLOCK && after == Lexing.CODE
        || state == Lexing.CODE && after == Lexing.TEXT_BLOCK) {
      return TEXT_BLOCK.length();
    }
    return state == Lexing.CODE && isComment(after)
            || state == Lexing.BLOCK_COMMENT && after == Lexing.CODE
        ? 2
        : 1;
  }

  private static boolean isWord(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }

  /** Every test source under {@code root} but {@code excluded}, with whether it runs. */
  static Map<String, Source> sources(Path root, Set<String> excluded) {
    Map<String, String> code = new LinkedHashMap<>();
    Map<String, Path> paths = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        String name = root.relativize(p).toString().replace('/', '.').replace('\\', '.');
        name = name.substring(0, name.length() - ".java".length());
        if (!excluded.contains(name)) {
          code.put(name, Files.readString(p, StandardCharsets.UTF_8));
          paths.put(name, p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> running = running(code);
    Map<String, Source> sources = new LinkedHashMap<>();
    code.forEach(
        (name, text) ->
            sources.put(
                name, new Source(paths.get(name), name, normalize(text), running.contains(name))));
    return sources;
  }

  /** The classes with tests, and those they use (by simple name), directly or through others. */
  private static Set<String> running(Map<String, String> code) {
    Map<String, List<String>> bySimpleName = new LinkedHashMap<>();
    code.keySet()
        .forEach(
            n ->
                bySimpleName
                    .computeIfAbsent(n.substring(n.lastIndexOf('.') + 1), k -> new ArrayList<>())
                    .add(n));
    Set<String> running = new HashSet<>();
    Deque<String> todo = new ArrayDeque<>();
    code.forEach(
        (name, text) -> {
          if (TEST_ANNOTATION.matcher(text).find()) {
            running.add(name);
            todo.add(name);
          }
        });
    while (!todo.isEmpty()) {
      Matcher words = IDENTIFIER.matcher(code.get(todo.poll()));
      Set<String> seen = new HashSet<>();
      while (words.find()) {
        if (seen.add(words.group())) {
          for (String used : bySimpleName.getOrDefault(words.group(), List.of())) {
            if (running.add(used)) {
              todo.add(used);
            }
          }
        }
      }
    }
    return running;
  }

  /**
   * Why {@code block} is not backed by one of {@code sources}, or empty when it is. A block stands
   * whole in one source, or its parts (the runs of lines between blank lines) stand in one source,
   * for a block that shows declarations and the statements that use them.
   */
  static Optional<String> problem(Block block, Map<String, Source> sources) {
    String head = block.where() + " (the ```java block starting \"" + block.firstLine() + "\")";
    if ("not an example".equals(block.marker())) {
      return block.markerValue().length() < 10
          ? Optional.of(head + " is exempt without a reason: say why in <!-- not an example: -->")
          : Optional.empty();
    }
    Normalized whole = normalize(String.join("\n", block.code()));
    if (whole.text().isEmpty()) {
      return Optional.of(head + " is empty: remove it");
    }
    List<Source> candidates = candidates(block, sources);
    if (candidates.isEmpty()) {
      return Optional.of(
          head
              + " names "
              + block.markerValue()
              + ", which is not a test source under src/test/java");
    }
    List<Normalized> parts = parts(block.code());
    for (Source s : candidates) {
      if (contains(s.normalized(), whole)
          || parts.stream().allMatch(part -> contains(s.normalized(), part))) {
        return s.runs()
            ? Optional.empty()
            : Optional.of(head + " stands in " + s.path() + ", which no test runs or uses.");
      }
    }
    return Optional.of(head + " is not backed by a test. " + nearest(block, candidates));
  }

  /** The runs of lines of {@code code} between blank lines, normalized. */
  private static List<Normalized> parts(List<String> code) {
    List<Normalized> parts = new ArrayList<>();
    List<String> part = new ArrayList<>();
    for (String line : code) {
      if (line.isBlank() && !part.isEmpty()) {
        parts.add(normalize(String.join("\n", part)));
        part.clear();
      } else if (!line.isBlank()) {
        part.add(line);
      }
    }
    if (!part.isEmpty()) {
      parts.add(normalize(String.join("\n", part)));
    }
    return parts;
  }

  private static List<Source> candidates(Block block, Map<String, Source> sources) {
    if ("example".equals(block.marker())) {
      Source named = sources.get(block.markerValue());
      return named == null ? List.of() : List.of(named);
    }
    return List.copyOf(sources.values());
  }

  /**
   * Whether {@code code} holds {@code wanted}: not as the tail or head of a longer word, and with
   * its comments where {@code wanted} has them.
   */
  static boolean contains(Normalized code, Normalized wanted) {
    String text = code.text();
    String part = wanted.text();
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      int end = at + part.length();
      boolean cutBefore = at > 0 && isWord(text.charAt(at - 1)) && isWord(part.charAt(0));
      boolean cutAfter =
          end < text.length() && isWord(text.charAt(end)) && isWord(part.charAt(part.length() - 1));
      if (!cutBefore && !cutAfter && code.comment().get(at, end).equals(wanted.comment())) {
        return true;
      }
    }
    return false;
  }

  /** Names the source holding the longest first part of the block, and the line it stops at. */
  private static String nearest(Block block, List<Source> candidates) {
    List<String> lines = block.code();
    int best = 0;
    Source bestSource = null;
    for (Source s : candidates) {
      int matched = matchedLines(lines, s.normalized());
      if (matched > best) {
        best = matched;
        bestSource = s;
      }
    }
    if (bestSource == null) {
      return "No test holds even its first line.";
    }
    return "Nearest: "
        + bestSource.path()
        + " holds it up to "
        + block.doc()
        + ":"
        + (block.line() + best)
        + "; it differs at "
        + block.doc()
        + ":"
        + (block.line() + best + 1)
        + " \""
        + (best < lines.size() ? lines.get(best).strip() : "")
        + "\".";
  }

  /** How many of the first lines of {@code lines} the code holds, joined. */
  private static int matchedLines(List<String> lines, Normalized code) {
    int matched = 0;
    for (int n = 1; n <= lines.size(); n++) {
      String part = normalize(String.join("\n", lines.subList(0, n))).text();
      if (lines.get(n - 1).isBlank()) {
        matched = n;
        continue;
      }
      if (!part.isEmpty() && !code.text().contains(part)) {
        break;
      }
      matched = n;
    }
    return matched;
  }
}
