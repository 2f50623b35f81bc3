package dev.kiln.regress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.cli.Kiln;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln regress} end to end on a fixture dataset: builds it once on the mini-cluster, passes when
 * the data matches what it measures, reuses the built snapshot, and exits 1 when an expectation drifts.
 */
class RegressCommandITCase {
  @TempDir Path tmp;

  @Test
  void passesOnRecordedValuesAndFailsOnDrift() throws Exception {
    Path datasets = tmp.resolve("datasets");
    Path set = Files.createDirectories(datasets.resolve("fixture"));
    Path fixture = Path.of(getClass().getResource("/fixture").toURI());
    Files.copy(fixture.resolve("corpus.jsonl"), set.resolve("corpus.jsonl"));
    Files.copy(fixture.resolve("eval/queries.jsonl"), set.resolve("queries.jsonl"));
    Files.copy(fixture.resolve("eval/qrels.tsv"), set.resolve("qrels.tsv"));
    Path specs = Files.createDirectories(tmp.resolve("regressions"));
    Path work = tmp.resolve("work");

    // First run records what the build measures (expectation 0.5 with tolerance 1 always passes).
    writeSpec(specs, 0.5, 1.0);
    String json = run(0, "--json", datasets, specs, work);
    double measured = Double.parseDouble(json.replaceAll("(?s).*\"actual\" : ([0-9.]+).*", "$1"));
    assertTrue(measured > 0.5, "the fixture's BM25 nDCG@10 should be high, was " + measured);

    writeSpec(specs, measured, 0.005);
    String ok = run(0, null, datasets, specs, work);
    assertTrue(ok.contains("all within tolerance"), ok);

    writeSpec(specs, measured - 0.1, 0.005);
    String drift = run(Kiln.FAILURE, null, datasets, specs, work);
    assertTrue(drift.contains("DRIFT"), drift);
    try (var dirs = Files.list(work)) {
      assertEquals(1, dirs.count(), "the snapshot built by the first run is reused, not rebuilt");
    }
  }

  private static void writeSpec(Path specs, double expected, double tolerance) throws Exception {
    Files.writeString(specs.resolve("fixture.yaml"), String.format(Locale.ROOT,
        "dataset: fixture%ncorpus: corpus.jsonl%nqueries: queries.jsonl%nqrels: qrels.tsv%n"
            + "build:%n  chunker:%n    size: 48%n    overlap: 8%n  ingest:%n    max-bad-fraction: 0.5%n"
            + "runs:%n  - mode: bm25%n    fast: true%n    tolerance: %s%n    expected: {ndcg@10: %s}%n",
        tolerance, expected));
  }

  private static String run(int expectedCode, String extra, Path datasets, Path specs, Path work) {
    PrintStream saved = System.out;
    PrintStream savedErr = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    ByteArrayOutputStream errBuf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(errBuf, true, StandardCharsets.UTF_8));
    int code;
    try {
      String[] base = {"regress", "--fast", "--datasets", datasets.toString(), "--regressions", specs.toString(),
          "--work", work.toString()};
      code = extra == null ? Kiln.execute(base) : Kiln.execute(append(base, extra));
    } finally {
      System.setOut(saved);
      System.setErr(savedErr);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    String err = errBuf.toString(StandardCharsets.UTF_8);
    assertEquals(expectedCode, code, out + err);
    return out;
  }

  private static String[] append(String[] a, String b) {
    String[] r = Arrays.copyOf(a, a.length + 1);
    r[a.length] = b;
    return r;
  }
}
