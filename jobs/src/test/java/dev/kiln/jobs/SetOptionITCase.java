package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln build --set} end to end: overridden keys reach the job (the manifest records them), the
 * effective-config log shows them with secrets masked, and a specific option still wins over {@code --set}.
 */
class SetOptionITCase {
  @Test
  void overriddenKeysReachTheSnapshotAndTheLog(@TempDir Path work) throws Exception {
    Path corpus = work.resolve("corpus.jsonl");
    Path fixture = Path.of(SetOptionITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Files.write(corpus, Files.readAllLines(fixture).subList(0, 4));
    Path root = work.resolve("snapshots");
    CliRun run = CliRun.of("build", "--config", "../configs/build.yaml", "--corpus", corpus.toString(),
        "--snapshots", root.toString(), "--set", "shards=3", "--shards", "1", "--set", "parallelism=1",
        "--set", "chunker.size=40", "--set", "chunker.overlap=4", "--set", "index.hnsw-m=24",
        "--set", "index.bm25-k1=1.1", "--set", "embed.batch-size=2", "--set", "index.recall-probe-samples=0",
        "--set", "changelog.properties.ssl.key.password=hunter2");
    assertEquals(0, run.exitCode(), run.err());
    SnapshotStore store = new SnapshotStore(root);
    Manifest m = store.manifest(store.currentId());
    assertEquals(40, m.chunker().size());
    assertEquals(4, m.chunker().overlap());
    assertEquals(24, m.index().hnswM());
    assertEquals(1.1f, m.index().bm25K1());
    assertEquals(1, m.shards().size(), "--shards wins over --set shards");
    String log = run.out() + run.err();
    assertTrue(log.contains("+ index.hnsw-m: 24") && log.contains("+ chunker.size: 40"), log);
    assertTrue(log.contains("+ changelog.properties.ssl.key.password: ****") && !log.contains("hunter2"), log);
  }
}
