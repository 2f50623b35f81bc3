package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenario with a real incremental build (a {@code kiln build} JVM paused while it embeds):
 * its base is no longer published nor the one before (rolled back from), and {@code gc --keep 0} runs.
 * gc keeps the base because the build's marker continues it — before, it deleted the base and the build
 * failed 26 s later ("no segments* file") — and the build then finishes and publishes a snapshot that
 * verifies, as does its base.
 */
class GcDuringIncrementalBuildITCase {
  @TempDir Path work;

  @Test
  void gcKeepsTheBaseOfARunningIncrementalBuild() throws Exception {
    Path root = work.resolve("snapshots");
    Path corpus = work.resolve("corpus.jsonl");
    Path fixture = Path.of(GcDuringIncrementalBuildITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    List<String> lines = Files.readAllLines(fixture).stream().filter(l -> l.startsWith("{\"_id\"")).toList();
    Files.write(corpus, lines.subList(0, 3));
    Path config = work.resolve("build.yaml");
    Files.writeString(config, String.join("\n", "corpus: [" + corpus + "]", "snapshots: " + root, "shards: 1",
        "parallelism: 1", "chunker: {size: 48, overlap: 8}", ""));
    SnapshotStore store = new SnapshotStore(root);

    CliRun first = CliRun.of("build", "--config", config.toString());
    assertEquals(0, first.exitCode(), first.err());
    String a = store.currentId();
    Files.write(corpus, lines.subList(0, 4));
    CliRun second = CliRun.of("build", "--config", config.toString());
    assertEquals(0, second.exitCode(), second.err());
    String b = store.currentId();
    assertTrue(second.out().contains("+ incremental: yes, over CURRENT " + a), second.out());

    // The third build continues b and stops while it embeds the added document.
    Files.write(corpus, lines.subList(0, 5));
    KilnProcess build = KilnProcess.start(work, "build", "embed", true,
        List.of("build", "--config", config.toString(), "--force"));
    try {
      build.awaitPause(180);
      String n = unfinished(store);
      assertEquals(b, store.stagingMarker(n).orElseThrow().base(), "the marker names the base it continues");

      CliRun rollback = CliRun.of("snapshots", "rollback", a, "--snapshots", root.toString());
      assertEquals(0, rollback.exitCode(), rollback.err());
      CliRun gc = CliRun.of("snapshots", "gc", "--keep", "0", "--json", "--snapshots", root.toString());
      assertEquals(0, gc.exitCode(), gc.err());
      JsonNode plan = new ObjectMapper().readTree(gc.out());
      assertEquals(List.of(a, b), strings(plan.get("kept")), gc.out());
      assertEquals(List.of(b), strings(plan.get("continued")), gc.out());
      assertEquals(List.of(n), strings(plan.get("building")), gc.out());
      assertEquals(List.of(), strings(plan.get("removed")), gc.out());
      assertEquals(List.of(), store.verify(store.manifest(b)), "the base is whole");

      build.resume();
      assertEquals(0, build.waitFor(180), build.log());
      assertEquals(n, store.currentId(), "--force published it over the rollback");
      Manifest m = store.open(n);
      assertEquals(b, m.parent());
      assertTrue(m.shards().get(0).files().stream().anyMatch(f -> b.equals(f.snapshot()) || a.equals(f.snapshot())),
          "the new snapshot shares files with its base");
      assertFalse(Files.exists(store.layout().snapshotDir(n).resolve("STAGING")));
    } finally {
      if (!build.exited()) {
        build.kill9();
      }
    }

    // Finished, the build no longer holds b; a goes (neither published nor the one before), b stays as
    // the published snapshot's parent; what survives verifies.
    CliRun gc = CliRun.of("snapshots", "gc", "--keep", "0", "--snapshots", root.toString());
    assertEquals(0, gc.exitCode(), gc.err());
    assertEquals(List.of(b, store.currentId()), store.list());
    for (String id : store.list()) {
      assertEquals(List.of(), store.verify(store.manifest(id)), id);
    }
  }

  /** The one snapshot directory without a manifest. */
  private static String unfinished(SnapshotStore store) {
    List<String> ids = new ArrayList<>(store.allIds());
    ids.removeAll(store.list());
    assertEquals(1, ids.size(), ids.toString());
    return ids.get(0);
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
