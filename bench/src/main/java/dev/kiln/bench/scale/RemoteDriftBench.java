package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.publish.SnapshotRetention;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Nights of a nightly rebuild on one remote root (an S3 bucket served by s3proxy on 127.0.0.1, as in
 * {@link RemoteScaleBench}): a full build, then each night one part file of the corpus rewritten with
 * 1 % of all records changed ({@link SyntheticCorpus#rewritePart}), an incremental build, {@code kiln
 * snapshots gc --keep KEEP}, and a following searcher that downloads the new snapshot into its cache and
 * searches it. Per night: the build's wall time, bytes it read of its base and uploaded, the bucket's
 * bytes after gc, bytes the follower downloaded and how long it took to switch, hybrid latency on the
 * follower's copy, and the shards' segment counts (the merge policy's effect on what stays shared).
 * Arguments: {@code DATASETS N WORK NIGHTS KEEP [HEAP]}; prints one JSON object and writes it to
 * {@code WORK/drift-n<N>/result.json}.
 */
public final class RemoteDriftBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUCKET = "kiln";
  private static final int QUERIES = 200;

  private RemoteDriftBench() {}

  public static void main(String[] args) throws Exception {
    Path datasets = Path.of(args[0]);
    long n = Long.parseLong(args[1]);
    Path work = Path.of(args[2]);
    int nights = Integer.parseInt(args[3]);
    int keep = Integer.parseInt(args[4]);
    String heap = args.length > 5 ? args[5] : "4g";
    ScaleOptions defaults = new ScaleOptions();
    Path run = work.resolve("drift-n" + n);
    LocalFiles.deleteTree(run);
    Path logs = Files.createDirectories(run.resolve("logs"));
    BaseData base = BaseData.forDefaults(datasets, work, heap, logs, defaults);
    SyntheticCorpus synth = new SyntheticCorpus(base, defaults.seed, defaults.noise);
    Path corpus = run.resolve("corpus");
    synth.write(n, corpus, 0, null);
    String config = Path.of("configs/build.yaml").toAbsolutePath().toString();
    List<String> texts = synth.queryTexts(QUERIES);
    List<float[]> vectors = synth.queryVectors(QUERIES);

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("chunks", n);
    result.put("nights", nights);
    result.put("gc_keep", keep);
    result.put("load_average_start", ScaleBench.loadAverage());
    List<Map<String, Object>> rows = new ArrayList<>();
    String root = "s3://" + BUCKET + "/snapshots";
    Path blobs = run.resolve("blobs");
    try (S3Server s3 = new S3Server(blobs, BUCKET)) {
      Map<String, String> settings = s3.settings();
      List<String> remoteArgs = new ArrayList<>(List.of(config, "s3://" + BUCKET + "/corpus/", root));
      settings.forEach((k, v) -> remoteArgs.add("filesystem." + k + "=" + v));
      try (Stream<Path> files = Files.list(corpus)) {
        for (Path f : files.sorted().toList()) {
          s3.putFile("corpus/" + f.getFileName(), f);
        }
      }
      SnapshotStore store = RemoteStorages.store(root, settings);
      SnapshotMirror follower = new SnapshotMirror(RemoteStorages.open(root, settings), root, run.resolve("follower"));
      FollowerSwitch followerSwitch = new FollowerSwitch(store, follower, Files.createDirectories(run.resolve("scratch")));
      String previous = null;
      for (int night = 0; night <= nights; night++) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("night", night);
        if (night > 0) {
          row.put("records_changed", synth.rewritePart(n, corpus, 0.01, night));
          String part = SyntheticCorpus.partOfNight(n, night);
          s3.putFile("corpus/" + part, corpus.resolve(part));
        }
        JsonNode build = ChildRun.run(heap, logs.resolve("night-" + night + ".log"), KilnBuildStep.class,
            remoteArgs.toArray(new String[0]));
        String id = build.get("snapshot").asText();
        row.put("snapshot", id);
        row.put("build_wall_s", build.get("wall_s").asDouble());
        JsonNode counters = build.path("manifest_counters");
        row.put("base_bytes_read", counters.path("base.bytes.read").asLong(0));
        row.put("shard_bytes_uploaded", counters.path("shards.bytes.uploaded").asLong(0));
        row.put("chunks_written", counters.path("chunks.written").asLong(0));
        Manifest m = store.manifest(id);
        long total = 0;
        long own = 0;
        List<Integer> segments = new ArrayList<>();
        for (Manifest.ShardEntry s : m.shards()) {
          int si = 0;
          for (Manifest.FileEntry f : s.files()) {
            total += f.size();
            own += f.snapshot() == null ? f.size() : 0;
            si += f.name().endsWith(".si") ? 1 : 0;
          }
          segments.add(si);
        }
        row.put("snapshot_shard_bytes", total);
        row.put("snapshot_own_shard_bytes", own);
        row.put("segments_per_shard", segments);
        long t0 = System.nanoTime();
        SnapshotRetention gc = new SnapshotRetention(store);
        List<String> removed = gc.execute(gc.plan(keep, 24L * 3600 * 1000));
        row.put("gc_removed", removed);
        row.put("gc_s", (System.nanoTime() - t0) / 1e9);
        row.put("bucket_snapshots_bytes", KilnBuildStep.bytes(blobs.resolve(BUCKET).resolve("snapshots")));
        Map<String, Object> switched = followerSwitch.follow(id);
        row.put("follower_switch_s", switched.get("switch_s"));
        row.put("follower_downloaded_bytes", switched.get("downloaded_bytes"));
        row.put("follower_linked_bytes", switched.get("linked_bytes"));
        row.put("follower", switched);
        follower.retainOnly(previous == null ? Set.of(id) : Set.of(previous, id));
        row.putAll(latency(run.resolve("follower"), texts, vectors));
        previous = id;
        rows.add(row);
        System.err.println("drift-bench: " + row);
      }
    }
    result.put("rows", rows);
    result.put("load_average_end", ScaleBench.loadAverage());
    String json = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result);
    Files.writeString(run.resolve("result.json"), json);
    System.out.println(json);
    LocalFiles.deleteTree(blobs);
    LocalFiles.deleteTree(run.resolve("follower"));
  }

  /** Open time and hybrid latency (query vectors given) of the follower's copy: one warm-up round, two measured. */
  private static Map<String, Object> latency(Path root, List<String> texts, List<float[]> vectors) throws Exception {
    Map<String, Object> out = new HashMap<>();
    long t0 = System.nanoTime();
    try (Searcher s = Searcher.builder().root(root).build()) {
      out.put("open_s", (System.nanoTime() - t0) / 1e9);
      for (int i = 0; i < texts.size(); i++) {
        s.search(SearchRequest.of(texts.get(i), SearchMode.HYBRID, 10), vectors.get(i));
      }
      Latencies all = new Latencies(texts.size() * 2);
      for (int r = 0; r < 2; r++) {
        for (int i = 0; i < texts.size(); i++) {
          SearchRequest request = SearchRequest.of(texts.get(i), SearchMode.HYBRID, 10);
          long a = System.nanoTime();
          s.search(request, vectors.get(i));
          all.add(System.nanoTime() - a);
        }
      }
      out.put("hybrid_p50_ms", all.percentileMs(50));
      out.put("hybrid_p99_ms", all.percentileMs(99));
    }
    return out;
  }
}
