package dev.kiln.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The scale benchmark's command line: sizes with suffixes, and errors that name the option. */
class ScaleOptionsTest {
  @Test
  void sizesTakeSuffixesAndDefaultsAreTheDocumentedOnes() {
    assertEquals(100_000, ScaleOptions.parse(new String[] {"--chunks", "100k"}).chunks);
    assertEquals(1_000_000, ScaleOptions.parse(new String[] {"--chunks", "1m"}).chunks);
    ScaleOptions o = ScaleOptions.parse(new String[] {"--chunks", "300_000", "--json"});
    assertEquals(300_000, o.chunks);
    assertTrue(o.json);
    assertEquals(42, o.seed);
    assertEquals("1,2,4", o.threads);
    assertEquals(3, o.rebuilds, "rebuilds timed, the median taken");
    assertEquals(1, ScaleOptions.parse(new String[] {"--chunks", "1m", "--rebuilds", "1"}).rebuilds);
  }

  @Test
  void badArgumentsAreRefusedNamingTheOption() {
    assertTrue(message().contains("--chunks"));
    assertTrue(message("--chunks", "ten").contains("--chunks"));
    assertTrue(message("--chunks", "10", "--frobnicate").contains("unknown option --frobnicate"));
    assertTrue(message("--chunks", "10", "--seed").contains("--seed needs a value"));
    assertTrue(message("--chunks", "10", "--threads", "1,,2").contains("--threads"));
    assertTrue(message("--chunks", "10", "--rebuilds", "0").contains("--rebuilds"));
    assertTrue(message("--chunks", "10", "--pairs", "-1").contains("--pairs"));
    assertTrue(message("--chunks", "10", "--pairs", "3", "--skip-raw").contains("--pairs"));
    assertTrue(message("--chunks", "10", "--pairs", "3", "--resume").contains("--pairs"));
  }

  @Test
  void pairsAreOffUnlessAsked() {
    assertEquals(0, ScaleOptions.parse(new String[] {"--chunks", "20k"}).pairs, "today's single run by default");
    ScaleOptions pairs = ScaleOptions.parse(new String[] {"--chunks", "20k", "--pairs", "3"});
    assertEquals(3, pairs.pairs);
    assertEquals("n20000-pairs", pairs.runDir().getFileName().toString(), "never a single run's folder");
    assertEquals("n20000", ScaleOptions.parse(new String[] {"--chunks", "20k"}).runDir().getFileName().toString());
  }

  private static String message(String... args) {
    return assertThrows(IllegalArgumentException.class, () -> ScaleOptions.parse(args)).getMessage();
  }
}
