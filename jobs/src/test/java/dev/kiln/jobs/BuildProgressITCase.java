package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.cli.progress.BuildProgress;
import dev.kiln.cli.progress.StageProgress;
import dev.kiln.config.BuildConfig;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln build}'s progress: polled from the running job, printed as plain lines when not at a terminal. */
class BuildProgressITCase {
  private static Path corpus(Path work) throws Exception {
    Path corpus = work.resolve("corpus.jsonl");
    Path fixture = Path.of(BuildProgressITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Files.write(corpus, Files.readAllLines(fixture).subList(0, 6));
    return corpus;
  }

  @Test
  void aBuildOutsideATerminalPrintsEachStagesProgressAsLogLines(@TempDir Path work) throws Exception {
    Path root = work.resolve("snapshots");
    // No --progress: auto, and a test JVM writes to pipes, so plain lines.
    CliRun run = CliRun.of("build", "--config", "../configs/build.yaml", "--corpus", corpus(work).toString(),
        "--snapshots", root.toString(), "--shards", "1", "--parallelism", "1", "--set", "index.recall-probe-samples=0");
    assertEquals(0, run.exitCode(), run.err());
    SnapshotStore store = new SnapshotStore(root);
    Manifest m = store.manifest(store.currentId());
    long chunks = m.shards().stream().mapToLong(Manifest.ShardEntry::chunks).sum();
    String err = run.err();
    assertTrue(err.contains("progress: read 6 records"), err);
    assertTrue(err.contains("progress: embed " + chunks + "/" + chunks + " chunks (100%)"), err);
    assertTrue(err.contains("progress: write " + chunks + "/" + chunks + " chunks (100%)"), err);
    assertTrue(!err.contains("\r") && !err.contains("\u001b["), "no cursor codes outside a terminal: " + err);
  }

  /** Every report the build makes, as it makes them. */
  private static final class Recorder implements BuildProgress {
    final List<List<StageProgress>> updates = new CopyOnWriteArrayList<>();
    final List<List<StageProgress>> finished = new CopyOnWriteArrayList<>();

    @Override
    public void update(List<StageProgress> stages) {
      updates.add(stages);
    }

    @Override
    public void finish(List<StageProgress> stages) {
      finished.add(stages);
    }
  }

  /** Documents enough that the job runs for seconds even with the model warm in this JVM. */
  static final int POLLED_DOCS = 400;

  /** {@link #POLLED_DOCS} one-paragraph documents, each its own chunk. */
  private static Path longerCorpus(Path work) throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < POLLED_DOCS; i++) {
      lines.add("{\"_id\": \"p" + i + "\", \"title\": \"Note " + i + "\", \"text\": \"Paragraph " + i
          + " describes how the tide gauge number " + i + " drifted by " + (i % 17) + " millimetres after the"
          + " storm of week " + (i % 52) + ", and what the harbour office did about the readings.\"}");
    }
    return Files.write(work.resolve("longer.jsonl"), lines);
  }

  @Test
  void theRunningJobIsPolledAndItsFinalCountsReported(@TempDir Path work) throws Exception {
    BuildConfig config = BuildConfig.load(Path.of("../configs/build.yaml"));
    // A job shorter than one poll (a warm model embeds six records in well under a second) is never
    // seen running: the corpus must outlast a few polls.
    config.corpus = List.of(longerCorpus(work).toString());
    config.snapshots = work.resolve("snapshots").toString();
    config.shards = 1;
    config.parallelism = 1;
    Recorder recorder = new Recorder();
    new FlinkBuildBackend().build(config.validate(), false, false, recorder);
    assertTrue(!recorder.updates.isEmpty(), "the job ran for seconds and was polled every "
        + FlinkBuildBackend.PROGRESS_POLL);
    assertEquals(1, recorder.finished.size());
    List<StageProgress> last = recorder.finished.get(0);
    assertEquals(List.of("read", "embed", "write"), last.stream().map(StageProgress::stage).toList());
    assertEquals(POLLED_DOCS, last.get(0).done());
    long chunks = last.get(1).total();
    assertTrue(chunks >= POLLED_DOCS, last.toString());
    assertEquals(chunks, last.get(1).done());
    assertEquals(chunks, last.get(2).done());
    // Counts only grow: no poll saw more than the end.
    for (List<StageProgress> u : recorder.updates) {
      assertTrue(u.get(1).done() <= chunks && u.get(0).done() <= POLLED_DOCS, u.toString());
    }
  }
}
