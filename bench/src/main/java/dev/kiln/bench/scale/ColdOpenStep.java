package dev.kiln.bench.scale;

import dev.kiln.search.Searcher;
import dev.kiln.snapshot.SnapshotStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Child step: a cold JVM's first open of the snapshot a root's {@code CURRENT} names, as {@code kiln
 * search} opens it, and nothing else. Result: the open's own time, the time from the process's start
 * (as the OS records it) to the searcher being ready, and the snapshot's format version.
 * Arguments: result file, snapshots root.
 */
public final class ColdOpenStep {
  private ColdOpenStep() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[1]);
    long t0 = System.nanoTime();
    Searcher s = Searcher.open(root);
    double open = (System.nanoTime() - t0) / 1e9;
    Instant ready = Instant.now();
    s.close();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("open_s", open);
    out.put("process_start_to_ready_s", ProcessHandle.current().info().startInstant()
        .map(start -> Duration.between(start, ready).toNanos() / 1e9).orElse(-1.0));
    SnapshotStore store = new SnapshotStore(root);
    String id = store.currentId();
    out.put("snapshot", id);
    out.put("format_version", store.manifest(id).formatVersion());
    ChildRun.write(args[0], out);
  }
}
