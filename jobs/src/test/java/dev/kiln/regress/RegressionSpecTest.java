package dev.kiln.regress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.AutoTokens;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegressionSpecTest {
  @TempDir Path dir;

  @Test
  void overridesApplyOnTopOfTheDefaults() throws Exception {
    Path f = dir.resolve("x.yaml");
    Files.writeString(f, "dataset: x\ncorpus: c.jsonl\nqueries: q.jsonl\nqrels: r.tsv\n"
        + "build:\n  shards: 3\n  chunker:\n    size: 64\n"
        + "runs:\n  - mode: bm25\n    fast: true\n    tolerance: 0.01\n    expected: {ndcg@10: 0.5}\n");
    RegressionSpec spec = RegressionSpec.load(f);
    BuildConfig c = spec.buildConfig(new BuildConfig());
    assertEquals(3, c.shards);
    assertEquals(64, c.chunker.size);
    assertEquals(AutoTokens.AUTO, c.chunker.overlap, "keys not overridden keep the default");
    assertEquals(0.5, spec.runs().get(0).expected().get("ndcg@10"));
  }

  @Test
  void aPathIsResolvedAgainstTheHomeAndWinsOverTheDatasetsRoot() throws Exception {
    Path f = dir.resolve("in-repo.yaml");
    Files.writeString(f, "dataset: mini\npath: configs/regressions/data/mini\ncorpus: c.jsonl\nqueries: q.jsonl\n"
        + "qrels: r.tsv\nruns:\n  - mode: bm25\n    tolerance: 0.01\n    expected: {ndcg@10: 0.5}\n");
    RegressionSpec spec = RegressionSpec.load(f);
    Path home = dir.resolve("repo");
    assertEquals(home.resolve("configs/regressions/data/mini"), spec.folder(dir.resolve("datasets"), home));

    Path plain = dir.resolve("plain.yaml");
    Files.writeString(plain, "dataset: mini\ncorpus: c.jsonl\nqueries: q.jsonl\nqrels: r.tsv\n"
        + "runs:\n  - mode: bm25\n    tolerance: 0.01\n    expected: {ndcg@10: 0.5}\n");
    assertEquals(dir.resolve("datasets/mini"), RegressionSpec.load(plain).folder(dir.resolve("datasets"), home),
        "without 'path' the dataset's folder under the datasets root is used");
  }

  @Test
  void unknownKeysAreRejected() throws Exception {
    Path f = dir.resolve("typo.yaml");
    Files.writeString(f, "dataset: x\npaht: data/x\ncorpus: c\nqueries: q\nqrels: r\n"
        + "runs:\n  - mode: bm25\n    tolerance: 0.01\n    expected: {ndcg@10: 0.5}\n");
    assertTrue(assertThrows(ConfigException.class, () -> RegressionSpec.load(f)).getMessage().contains("paht"));
  }

  @Test
  void aRunWithoutToleranceIsRejected() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(f, "dataset: x\ncorpus: c\nqueries: q\nqrels: r\nruns:\n  - mode: bm25\n    expected: {ndcg@10: 0.5}\n");
    assertTrue(assertThrows(ConfigException.class, () -> RegressionSpec.load(f)).getMessage().contains("tolerance"));
  }

  @Test
  void everyCommittedRegressionFileLoadsAndItsOverridesValidate() throws Exception {
    try (Stream<Path> files = Files.list(Path.of("..", "configs", "regressions"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        RegressionSpec spec = RegressionSpec.load(f);
        spec.buildConfig(BuildConfig.load(Path.of("..", "configs", "build.yaml"))).validate();
        if (spec.path() != null) {
          Path folder = spec.folder(Path.of("unused"), Path.of(".."));
          for (String name : new String[] {spec.corpus(), spec.queries(), spec.qrels()}) {
            assertTrue(Files.isRegularFile(folder.resolve(name)), f + ": in-repo file missing " + folder.resolve(name));
          }
        }
        assertTrue(spec.runs().stream().anyMatch(RegressionSpec.Run::fast) || !spec.dataset().equals("cranfield"),
            "cranfield carries the --fast runs CI uses");
      }
    }
  }
}
