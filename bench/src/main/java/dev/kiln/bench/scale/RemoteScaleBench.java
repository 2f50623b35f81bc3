package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The scale benchmark's builds with corpus and snapshots in an S3 bucket, side by side with the same
 * builds on the local disk in the same run (issue 44's targets): one pair of full builds (long, so
 * one), then {@code ROUNDS} alternated pairs of rebuilds after one of the corpus's files was rewritten
 * with 1 % of all records changed afresh each round (the nightly-export case, {@link
 * SyntheticCorpus#changeFirstPart}; the same bytes on disk and in the bucket), then {@code ROUNDS}
 * alternated pairs of rebuilds with nothing changed. After each remote build a following searcher
 * ({@code kiln serve}'s mirror) switches to its snapshot and plain GETs of the files it downloaded are
 * timed; last, {@code ROUNDS} alternated pairs of cold-JVM opens of the follower's copy and of the local
 * root. The pairs' order alternates (L,R then R,L …) and the summary gives each measure per pair with
 * its median and range (docs/results/README.md).
 * The bucket is served by s3proxy on 127.0.0.1 over a filesystem blob store under the work folder (the
 * server the integration tests use): real S3 requests through Flink's S3 file system and Kiln's
 * snapshot storage, on this machine's disk, with no network latency — a lower bound on what a remote
 * store adds. Each build and each open runs in its own JVM; the server and the follower run in this one.
 * Arguments: {@code DATASETS N WORK [ROUNDS [HEAP]]} (N records, 50,000 a file; ROUNDS default 3);
 * prints one JSON object and writes it to {@code WORK/remote-n<N>/result.json}.
 */
public final class RemoteScaleBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUCKET = "kiln";
  /** Issue 44's targets for a 1 % change. */
  private static final double MAX_WALL_RATIO = 1.3;
  private static final double MAX_BYTES_FRACTION = 0.05;
  private static final double MAX_SWITCH_VS_DOWNLOAD = 2.0;
  private static final double MAX_COLD_OPEN_S = 1.0;

  private RemoteScaleBench() {}

  public static void main(String[] args) throws Exception {
    long n;
    int rounds;
    try {
      n = Long.parseLong(args[1]);
      rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    } catch (RuntimeException e) {
      System.err.println("remote-bench: usage: DATASETS N WORK [ROUNDS [HEAP]], N and ROUNDS whole numbers");
      System.exit(2);
      return;
    }
    if (n < 1 || rounds < 1) {
      System.err.println("remote-bench: N and ROUNDS must be at least 1 (were " + n + ", " + rounds + ")");
      System.exit(2);
    }
    Path datasets = Path.of(args[0]);
    Path work = Path.of(args[2]);
    String heap = args.length > 4 ? args[4] : "4g";
    ScaleOptions defaults = new ScaleOptions();
    Path run = work.resolve("remote-n" + n);
    LocalFiles.deleteTree(run);
    Path logs = Files.createDirectories(run.resolve("logs"));
    BaseData base = BaseData.forDefaults(datasets, work, heap, logs, defaults);
    SyntheticCorpus synth = new SyntheticCorpus(base, defaults.seed, defaults.noise);
    Path corpus = run.resolve("corpus");
    synth.write(n, corpus, 0, null);
    String config = Path.of("configs/build.yaml").toAbsolutePath().toString();

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("chunks", n);
    result.put("corpus_bytes", KilnBuildStep.bytes(corpus));
    result.put("rounds", rounds);
    result.put("cpus", Runtime.getRuntime().availableProcessors());
    result.put("java", Runtime.version().toString());
    result.put("commit", System.getProperty("kiln.commit", "unknown"));
    result.put("load_average_start", ScaleBench.loadAverage());
    Path bucketSnapshots = run.resolve("blobs").resolve(BUCKET).resolve("snapshots");
    try (S3Server s3 = new S3Server(run.resolve("blobs"), BUCKET)) {
      String root = "s3://" + BUCKET + "/snapshots";
      List<String> remoteArgs = new ArrayList<>(List.of(config, "s3://" + BUCKET + "/corpus/", root));
      s3.settings().forEach((k, v) -> remoteArgs.add("filesystem." + k + "=" + v));
      upload(s3, corpus);
      Path local = run.resolve("snapshots");
      SnapshotMirror follower = new SnapshotMirror(RemoteStorages.open(root, s3.settings()), root,
          run.resolve("follower"));
      RemotePairs steps = new RemotePairs(heap, logs, List.of(config, corpus.toString(), local.toString()),
          remoteArgs, new SnapshotStore(local), RemoteStorages.store(root, s3.settings()), bucketSnapshots, follower,
          run.resolve("scratch"));

      Map<String, Object> full = new LinkedHashMap<>();
      full.put("pairs", 1); // a full build at 1M takes many minutes: one pair, said so
      full.put("local", steps.build("full-local", false));
      Map<String, Object> remoteFull = steps.build("full-remote", true);
      full.put("remote", remoteFull);
      full.put("follower", steps.follow((String) remoteFull.get("snapshot")));
      result.put("full", full);

      List<Map<String, Object>> oneFile = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        // The same change for both: the local corpus's file rewritten, then its bytes to the bucket.
        long changed = synth.changeFirstPart(n, corpus, 0.01, r + 1);
        s3.putFile("corpus/part-0000.parquet", corpus.resolve("part-0000.parquet"));
        Map<String, Object> pair = new LinkedHashMap<>();
        pair.put("records_changed", changed);
        pair.putAll(steps.pair("one_file", r));
        oneFile.add(pair);
      }
      result.put("one_file", oneFile);
      List<Map<String, Object>> unchanged = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        unchanged.add(steps.pair("unchanged", r));
      }
      result.put("unchanged", unchanged);
      result.put("cold_open", coldOpens(heap, logs, rounds, run.resolve("follower"), local));
      result.put("remote_snapshots_bytes", KilnBuildStep.bytes(bucketSnapshots));
    }
    result.put("summary", summary(result));
    result.put("load_average_end", ScaleBench.loadAverage());
    String json = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result);
    Files.writeString(run.resolve("result.json"), json);
    System.out.println(json);
    for (String dir : List.of("blobs", "snapshots", "follower", "scratch")) {
      LocalFiles.deleteTree(run.resolve(dir));
    }
  }

  /**
   * Alternated pairs of cold-JVM opens (a fresh process each, page cache as the builds left it): the
   * follower's copy of the last remote-built snapshot and the last local build's root.
   */
  private static List<Map<String, Object>> coldOpens(String heap, Path logs, int rounds, Path followerRoot,
      Path localRoot) throws IOException, InterruptedException {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      Map<String, Object> pair = new LinkedHashMap<>();
      pair.put("round", r + 1);
      List<String> order = r % 2 == 0 ? List.of("follower", "local") : List.of("local", "follower");
      pair.put("order", order);
      pair.put("load_average", ScaleBench.loadAverage());
      for (String side : order) {
        Path root = side.equals("follower") ? followerRoot : localRoot;
        pair.put(side, ChildRun.run(heap, logs.resolve("cold-open-" + side + "-r" + (r + 1) + ".log"),
            ColdOpenStep.class, root.toString()));
      }
      System.err.println("remote-bench: cold open " + pair);
      out.add(pair);
    }
    return out;
  }

  /** Per measure: each pair's value (remote over local, or the fraction), median, min and max. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> summary(Map<String, Object> result) {
    Map<String, Object> s = new LinkedHashMap<>();
    Map<String, Object> full = (Map<String, Object>) result.get("full");
    s.put("full_wall_remote_vs_local", Map.of("pairs", 1, "value",
        num(full, "remote", "wall_s") / num(full, "local", "wall_s")));
    for (String kind : List.of("one_file", "unchanged")) {
      List<Map<String, Object>> pairs = (List<Map<String, Object>>) result.get(kind);
      boolean targets = kind.equals("one_file");
      Map<String, Object> k = new LinkedHashMap<>();
      k.put("wall_remote_vs_local", stats(pairs, p -> num(p, "remote", "wall_s") / num(p, "local", "wall_s"),
          targets ? MAX_WALL_RATIO : null));
      k.put("uploaded_vs_snapshot", stats(pairs,
          p -> num(p, "remote", "bucket_bytes_uploaded") / num(p, "remote", "snapshot_bytes"),
          targets ? MAX_BYTES_FRACTION : null));
      k.put("follower_downloaded_vs_snapshot", stats(pairs,
          p -> num(p, "follower", "downloaded_bytes") / num(p, "remote", "snapshot_bytes"),
          targets ? MAX_BYTES_FRACTION : null));
      k.put("follower_downloaded_vs_serving", stats(pairs,
          p -> num(p, "follower", "downloaded_bytes") / num(p, "follower", "serving_bytes"), null));
      // Only where something was downloaded: with nothing to fetch the ratio means nothing.
      k.put("switch_vs_plain_get", stats(pairs.stream().filter(p -> num(p, "follower", "plain_get_bytes") > 0).toList(),
          p -> num(p, "follower", "switch_s") / num(p, "follower", "plain_get_s"),
          targets ? MAX_SWITCH_VS_DOWNLOAD : null));
      s.put(kind, k);
    }
    List<Map<String, Object>> opens = (List<Map<String, Object>>) result.get("cold_open");
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("open_follower_vs_local", stats(opens, p -> node(p, "follower", "open_s") / node(p, "local", "open_s"), null));
    o.put("follower_process_start_to_ready_s", stats(opens, p -> node(p, "follower", "process_start_to_ready_s"),
        MAX_COLD_OPEN_S));
    o.put("local_process_start_to_ready_s", stats(opens, p -> node(p, "local", "process_start_to_ready_s"), null));
    s.put("cold_open", o);
    return s;
  }

  private static <T> Map<String, Object> stats(List<T> pairs, ToDoubleFunction<T> measure, Double target) {
    return PairStats.of(pairs.stream().map(measure::applyAsDouble).toList(), target);
  }

  @SuppressWarnings("unchecked")
  private static double num(Map<String, Object> pair, String side, String key) {
    return ((Number) ((Map<String, Object>) pair.get(side)).get(key)).doubleValue();
  }

  private static double node(Map<String, Object> pair, String side, String key) {
    return ((JsonNode) pair.get(side)).get(key).asDouble();
  }

  private static void upload(S3Server s3, Path corpus) throws IOException {
    try (Stream<Path> files = Files.list(corpus)) {
      for (Path f : files.sorted().toList()) {
        s3.putFile("corpus/" + f.getFileName(), f);
      }
    }
  }
}
