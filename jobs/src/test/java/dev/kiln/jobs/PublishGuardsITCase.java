package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real {@code kiln build} JVMs into one local root, from the same {@code CURRENT}, ordered with a
 * resumable pause point rather than sleeps: exactly one publishes, the other fails with the
 * compare-and-set message and leaves {@code CURRENT} alone; {@code --force} publishes anyway. (The
 * recall gate is {@code RecallFloorTest}; the S3 race is {@code S3SnapshotStorageITCase}.) Without
 * {@code concurrent-builds: allow} the second build does not get that far: it is refused at its start
 * (exit 2, nothing written) or, with {@code wait}, starts once the first has published, from its snapshot.
 */
class PublishGuardsITCase {
  private static final Pattern SNAPSHOT = Pattern.compile("\\+ snapshot: (\\S+) \\(CURRENT at start: (\\S+)\\)");

  @TempDir static Path work;
  static Path root;
  static Path corpus;
  static Path config;
  static String base;

  @BeforeAll
  static void publishABaseSnapshot() throws Exception {
    root = work.resolve("snapshots");
    corpus = work.resolve("corpus.jsonl");
    Path fixture = Path.of(PublishGuardsITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Files.write(corpus, Files.readAllLines(fixture).subList(0, 4));
    config = config("build.yaml", "index: {recall-probe-samples: 5}");
    CliRun run = CliRun.of("build", "--config", config.toString());
    assertEquals(0, run.exitCode(), run.err());
    base = new SnapshotStore(root).currentId();
  }

  private static Path config(String name, String index) throws Exception {
    return config(name, index, corpus);
  }

  private static Path config(String name, String index, Path corpusFile) throws Exception {
    int shards = 2;
    Path file = work.resolve(name);
    Files.writeString(file, String.join("\n",
        "corpus: [" + corpusFile + "]",
        "snapshots: " + root,
        "shards: " + shards,
        "parallelism: " + shards,
        "chunker: {size: 48, overlap: 8}",
        "embed: {batch-size: 2}",
        index,
        ""));
    return file;
  }

  /** The id a build announced and the CURRENT it started from. */
  private static String[] announced(KilnProcess p) throws Exception {
    Matcher m = SNAPSHOT.matcher(p.log());
    assertTrue(m.find(), p.log());
    return new String[] {m.group(1), m.group(2)};
  }

  @Test
  void twoConcurrentBuildsFromTheSameCurrentCannotOverwriteEachOther() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    List<String> build = List.of("build", "--config", config.toString());
    // A reaches the point between its manifest and CURRENT and waits there; B, started from the same
    // CURRENT, runs to the end and publishes; then A goes on and must lose the compare-and-set.
    KilnProcess a = KilnProcess.start(work, "race-a", "before-current", true, build);
    a.awaitPause(180);
    // B is let run beside A (concurrent-builds: allow): the compare-and-set is the guard under test.
    KilnProcess b = KilnProcess.start(work, "race-b", null, List.of("build", "--config", config.toString(), "--set",
        "concurrent-builds=allow"));
    assertEquals(0, b.waitFor(180), b.log());
    String[] fromA = announced(a);
    String[] fromB = announced(b);
    assertEquals(base, fromA[1], "A started from the base");
    assertEquals(base, fromB[1], "B started from the same CURRENT");
    assertEquals(fromB[0], store.currentId(), "B published");

    a.resume();
    assertEquals(1, a.waitFor(120), a.log());
    String log = a.log();
    assertTrue(log.contains("snapshot " + fromA[0] + " was built and verified but NOT published: CURRENT names "
        + fromB[0] + ", not " + base), log);
    assertTrue(log.contains("--force") && log.contains("kiln snapshots publish " + fromA[0]), log);
    assertEquals(fromB[0], store.currentId(), "the loser did not overwrite CURRENT");
    assertTrue(store.list().contains(fromA[0]), "the loser's snapshot stays complete, for a manual publish");
    store.open(fromA[0]);

    // With --force a rerun publishes even though CURRENT moves (here: a rollback) while it runs.
    KilnProcess forced = KilnProcess.start(work, "race-force", "before-current", true,
        List.of("build", "--config", config.toString(), "--force"));
    forced.awaitPause(180);
    CliRun rollback = CliRun.of("snapshots", "rollback", "--snapshots", root.toString());
    assertEquals(0, rollback.exitCode(), rollback.err());
    assertNotEquals(fromB[0], store.currentId());
    forced.resume();
    assertEquals(0, forced.waitFor(120), forced.log());
    String[] fromForced = announced(forced);
    assertEquals(fromB[0], fromForced[1]);
    assertEquals(fromForced[0], store.currentId(), "--force published over the moved CURRENT");
    assertTrue(forced.log().contains(fromForced[0] + " (published)"), forced.log());
  }

  @Test
  void aSecondBuildWhileOneRunsIsRefusedOrWaitsAndThenBuildsOnWhatTheFirstPublished() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    // Documents the root has not seen, so that A embeds; A pauses in its embed stage, its marker alive.
    Path other = work.resolve("other.jsonl");
    Path fixture = Path.of(PublishGuardsITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Files.write(other, Files.readAllLines(fixture).subList(4, 8));
    Path guarded = config("guarded.yaml", "index: {recall-probe-samples: 5}\ningest: {max-bad-fraction: 0.5}", other);
    KilnProcess a = KilnProcess.start(work, "running-a", "embed", true, List.of("build", "--config", guarded.toString()));
    a.awaitPause(180);
    String running = announced(a)[0];
    List<String> before = store.allIds();

    CliRun refused = CliRun.of("build", "--config", guarded.toString());
    assertEquals(2, refused.exitCode(), refused.out() + refused.err());
    assertTrue(refused.err().contains(" is running: " + running + " ("), refused.err());
    assertTrue(refused.err().contains("concurrent-builds=wait"), refused.err());
    assertEquals(before, store.allIds(), "the refused build wrote nothing");

    KilnProcess waiting = KilnProcess.start(work, "waiting-b", null,
        List.of("build", "--config", guarded.toString(), "--set", "concurrent-builds=wait"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!waiting.log().contains("+ waiting for 1 running build(s) of this root: " + running)) {
      assertTrue(System.nanoTime() < deadline && !waiting.exited(), waiting.log());
      Thread.sleep(100);
    }
    assertEquals(before, store.allIds(), "the waiting build has written nothing yet");
    a.resume();
    assertEquals(0, a.waitFor(120), a.log());
    assertEquals(0, waiting.waitFor(180), waiting.log());
    String[] fromWaiting = announced(waiting);
    assertEquals(running, fromWaiting[1], "the waiting build planned from the snapshot the first one published");
    assertEquals(fromWaiting[0], store.currentId());
  }
}
