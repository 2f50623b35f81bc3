package dev.kiln.bench.scale;

import dev.kiln.config.BuildConfig;
import dev.kiln.jobs.BuildJob;
import dev.kiln.jobs.SnapshotBuilder;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Child step: one {@code kiln build} of the corpus with the default configuration
 * ({@code configs/build.yaml}) — what {@code scripts/kiln build --corpus DIR --snapshots ROOT} runs —
 * in its own JVM. Result: the build's counters table (stage busy times, wall times, counts), the
 * snapshot's size on disk and the JVM's peak heap and resident set.
 * Arguments: result file, build.yaml, corpus folder, snapshots root, then {@code embed.model=NAME} (the
 * model, over the configuration's) and any {@code filesystem.KEY=VALUE}
 * (Flink file system keys, for a remote corpus or root: {@link RemoteScaleBench}).
 */
public final class KilnBuildStep {
  private KilnBuildStep() {}

  public static void main(String[] args) throws Exception {
    try (ProcessMemory memory = new ProcessMemory()) {
      BuildConfig c = BuildConfig.load(Path.of(args[1]));
      c.corpus = List.of(args[2]);
      c.snapshots = args[3];
      for (int i = 4; i < args.length; i++) {
        if (args[i].startsWith("embed.model=")) { // the scale benchmark's --model, over the configuration's
          c.embed.model = args[i].substring("embed.model=".length());
          continue;
        }
        if (!args[i].startsWith("filesystem.") || args[i].indexOf('=') < 0) {
          throw new IllegalArgumentException("expected filesystem.KEY=VALUE, was " + args[i]);
        }
        String kv = args[i].substring("filesystem.".length());
        c.filesystem.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
      long t0 = System.nanoTime();
      SnapshotBuilder.BuildReport r = new SnapshotBuilder(c, new PrintStream(System.out, true, StandardCharsets.UTF_8))
          .build(BuildJob.localEnvironment(c.parallelism));
      double wall = (System.nanoTime() - t0) / 1e9;
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("snapshot", r.snapshotId());
      out.put("wall_s", wall);
      out.put("chunks", r.manifest().totalChunks());
      out.put("shards", c.shards);
      out.put("parallelism", c.parallelism);
      out.put("hnsw_m", c.index.hnswM);
      out.put("hnsw_beam_width", c.index.hnswBeamWidth);
      out.put("max_segments", c.index.maxSegments);
      out.put("ram_buffer_mb", c.index.ramBufferMb);
      out.put("embeddings", r.manifest().embeddings());
      if (!args[3].contains("://")) { // a remote root's bytes are the caller's to count
        Path dir = Path.of(args[3]).resolve("snapshots").resolve(r.snapshotId());
        out.put("snapshot_bytes", bytes(dir));
        out.put("shard_bytes", bytes(dir) - bytes(dir.resolve(SnapshotLayout.EMBEDDINGS)));
      }
      out.put("counters", r.counters().asMap());
      out.put("manifest_counters", r.manifest().counters());
      out.putAll(memory.report());
      ChildRun.write(args[0], out);
    }
  }

  static long bytes(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
