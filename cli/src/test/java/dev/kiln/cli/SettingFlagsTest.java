package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.search.rerank.CrossEncoderReranker;
import dev.kiln.search.rewrite.QueryRewriters;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The searcher names a refused setting in its own terms ({@code alpha}); the command line prints the
 * flag that set it, exactly as it always has.
 */
class SettingFlagsTest {
  @Test
  void everySettingHasItsOwnFlag() {
    Set<String> flags = new HashSet<>();
    for (Setting s : Setting.values()) {
      assertTrue(SettingFlags.flag(s).startsWith("--"), s + " → " + SettingFlags.flag(s));
      assertTrue(flags.add(SettingFlags.flag(s)), "two settings share " + SettingFlags.flag(s));
    }
  }

  @Test
  void refusedRetrievalFlagsAreNamedAsOnTheCommandLine(@TempDir Path empty) {
    String root = empty.toString();
    assertUsageError("--alpha must be in [0, 1], was 2.0", "search", "--snapshots", root, "--alpha", "2", "q");
    assertUsageError("malformed --filter 'novalue': expected KEY=VALUE or KEY>=VALUE (>, <=, <)",
        "search", "--snapshots", root, "--filter", "novalue", "q");
    assertUsageError("malformed --filter 'version>=': expected KEY>=VALUE, KEY>VALUE, KEY<=VALUE, KEY<VALUE or"
        + " LOW<=KEY<HIGH", "search", "--snapshots", root, "--filter", "version>=", "q");
    assertUsageError("unknown --fusion 'max': valid values are rrf, blend",
        "search", "--snapshots", root, "--fusion", "max", "q");
    assertUsageError("--dense-depth (or --depth) must be >= 1, was 0", "search", "--snapshots", root, "--depth", "0", "q");
    assertUsageError("--ef must be >= 1, or 0 for the snapshot's default, was -1",
        "search", "--snapshots", root, "--ef", "-1", "q");
    assertUsageError("unknown --prf-scope 'everything': valid values are candidates, index",
        "search", "--snapshots", root, "--prf-scope", "everything", "q");
    assertUsageError("--hybrid-prf-orig-weight must be in [0, 1], was 2.0",
        "serve", "--snapshots", root, "--port", "0", "--hybrid-prf-orig-weight", "2");
    // The searcher's test jar, on this classpath, adds a rewriter of its own (test-passage).
    String known = "--rewriter 'nope' is unknown; known rewriters: " + QueryRewriters.names();
    assertTrue(known.endsWith("keywords, none, rm3, test-passage"), known);
    assertUsageError(known, "search", "--snapshots", root, "--rewriter", "nope", "q");
    assertUsageError(known, "serve", "--snapshots", root, "--port", "0", "--rewriter", "nope");
    assertUsageError("--dense-prf-docs must be >= 0, was -1", "search", "--snapshots", root, "--dense-prf-docs", "-1", "q");
  }

  @Test
  void aRerankModelProblemNamesTheFlag(@TempDir Path empty) {
    SettingException e = Assertions.assertThrows(SettingException.class,
        () -> CrossEncoderReranker.open(empty));
    assertEquals("--rerank-model " + empty + " has no model.yaml (a cross-encoder directory holds the model file,"
        + " tokenizer.json and model.yaml)", SettingFlags.message(e));
  }

  @Test
  void expandingParentsOfASnapshotWithoutThemNamesTheBuildAndSearchFlags(@TempDir Path root) throws Exception {
    String id = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).write(root);
    Run run = run("search", "--snapshots", root.toString(), "--mode", "bm25", "--expand", "parents", "volcano");
    assertEquals(Kiln.FAILURE, run.code(), run.err());
    assertTrue(run.err().contains("kiln: snapshot " + id + " has no parents docstore: build it with --parents TOKENS"
        + " (chunker.parents.enabled: true) to use --expand parents"), run.err());
  }

  private static float[] unit(int dimension, int seed) {
    float[] v = new float[dimension];
    v[seed % dimension] = 1;
    return v;
  }

  private static void assertUsageError(String message, String... args) {
    Run run = run(args);
    assertEquals(Kiln.USAGE, run.code(), Arrays.toString(args) + ": " + run.err());
    List<String> lines = run.err().lines().toList();
    assertTrue(lines.contains("kiln: configuration error: " + message), Arrays.toString(args) + ": " + run.err());
  }

  private record Run(int code, String err) {}

  private static Run run(String... args) {
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = Kiln.execute(args);
      return new Run(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(original);
    }
  }
}
