package dev.onceonly.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Fingerprint;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Canonicalization and fingerprinting against Jackson's plain serialization of the same tree, in
 * the same run. Run with the {@code bench} profile (see docs/performance.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CanonicalizerBenchmark {
  private static final String OPERATION = "make_report";

  @Param({"small", "2KB", "64KB"})
  public String size;

  private final ObjectMapper mapper = new ObjectMapper();
  private final Canonicalizer canonicalizer = Canonicalizer.defaults();
  private JsonNode tree;
  private String text;

  /** Builds the document; its text is Jackson's compact form, members in insertion order. */
  @Setup
  public void setUp() throws JsonProcessingException {
    tree = BenchDocuments.of(size);
    text = mapper.writeValueAsString(tree);
    if (!canonicalizer.fingerprint(OPERATION, text).equals(onceonly_fingerprint_tree())) {
      throw new IllegalStateException("text and tree fingerprints differ");
    }
  }

  /** The baseline: Jackson writes the tree as it is, unsorted. */
  @Benchmark
  public byte[] jackson_writeValueAsBytes() throws JsonProcessingException {
    return mapper.writeValueAsBytes(tree);
  }

  /** The fair baseline for text input: Jackson parses the text and writes it back. */
  @Benchmark
  public byte[] jackson_readTree_writeValueAsBytes() throws JsonProcessingException {
    return mapper.writeValueAsBytes(mapper.readTree(text));
  }

  @Benchmark
  public byte[] onceonly_canonicalize_tree() {
    return canonicalizer.canonicalize(tree);
  }

  @Benchmark
  public Fingerprint onceonly_fingerprint_tree() {
    return canonicalizer.fingerprint(OPERATION, tree);
  }

  @Benchmark
  public byte[] onceonly_canonicalize_text() {
    return canonicalizer.canonicalize(text);
  }

  @Benchmark
  public Fingerprint onceonly_fingerprint_text() {
    return canonicalizer.fingerprint(OPERATION, text);
  }
}
