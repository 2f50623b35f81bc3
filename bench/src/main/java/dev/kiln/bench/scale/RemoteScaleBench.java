package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The scale benchmark's builds with corpus and snapshots in an S3 bucket, side by side with the same
 * builds on the local disk in the same run: a full build, a rebuild with nothing changed, and a rebuild
 * after one of the corpus's files was rewritten with 1 % of all records changed (the nightly-export
 * case, {@link SyntheticCorpus#rewriteFirstPart}). The bucket is served by s3proxy on 127.0.0.1 over a
 * filesystem blob store under the work folder (the server the integration tests use): real S3 requests
 * through Flink's S3 file system and Kiln's snapshot storage, on this machine's disk, with no network
 * latency — a lower bound on what a remote store adds. Each build runs in its own JVM ({@link
 * KilnBuildStep}); the server runs in this one.
 * Arguments: {@code DATASETS N WORK [HEAP]} (N records, 50,000 a file); prints one JSON object and
 * writes it to {@code WORK/remote-n<N>/result.json}.
 */
public final class RemoteScaleBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUCKET = "kiln";

  private RemoteScaleBench() {}

  public static void main(String[] args) throws Exception {
    Path datasets = Path.of(args[0]);
    long n = Long.parseLong(args[1]);
    Path work = Path.of(args[2]);
    String heap = args.length > 3 ? args[3] : "4g";
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
    result.put("load_average_start", ScaleBench.loadAverage());
    try (S3Server s3 = new S3Server(run.resolve("blobs"), BUCKET)) {
      List<String> remoteArgs = new ArrayList<>(List.of(config, "s3://" + BUCKET + "/corpus/",
          "s3://" + BUCKET + "/snapshots"));
      s3.settings().forEach((k, v) -> remoteArgs.add("filesystem." + k + "=" + v));
      upload(s3, corpus);
      Path local = run.resolve("snapshots");
      List<String> localArgs = List.of(config, corpus.toString(), local.toString());

      String root = "s3://" + BUCKET + "/snapshots";
      SnapshotMirror follower = new SnapshotMirror(RemoteStorages.open(root, s3.settings()), root,
          run.resolve("follower"));
      step(heap, result, "local_full", logs, localArgs);
      step(heap, result, "remote_full", logs, remoteArgs);
      follow(follower, result, "remote_full");
      step(heap, result, "local_unchanged", logs, localArgs);
      step(heap, result, "remote_unchanged", logs, remoteArgs);
      follow(follower, result, "remote_unchanged");
      // The same file rewritten for both: the local corpus in place, then its bytes to the bucket.
      result.put("one_file_changed_records", synth.rewriteFirstPart(n, corpus, 0, 0.01));
      s3.putFile("corpus/part-0000.parquet", corpus.resolve("part-0000.parquet"));
      step(heap, result, "local_one_file", logs, localArgs);
      step(heap, result, "remote_one_file", logs, remoteArgs);
      follow(follower, result, "remote_one_file");
      result.put("remote_snapshots_bytes", KilnBuildStep.bytes(run.resolve("blobs").resolve(BUCKET).resolve("snapshots")));
    }
    for (String s : List.of("full", "unchanged", "one_file")) {
      result.put(s + "_remote_vs_local", ((JsonNode) result.get("remote_" + s)).get("wall_s").asDouble()
          / ((JsonNode) result.get("local_" + s)).get("wall_s").asDouble());
    }
    result.put("load_average_end", ScaleBench.loadAverage());
    String json = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result);
    Files.writeString(run.resolve("result.json"), json);
    System.out.println(json);
    LocalFiles.deleteTree(run.resolve("blobs"));
    LocalFiles.deleteTree(run.resolve("snapshots"));
    LocalFiles.deleteTree(run.resolve("follower"));
  }

  private static void step(String heap, Map<String, Object> result, String name, Path logs, List<String> args)
      throws IOException, InterruptedException {
    JsonNode r = ChildRun.run(heap, logs.resolve(name + ".log"), KilnBuildStep.class, args.toArray(new String[0]));
    result.put(name, r);
    System.err.printf(Locale.ROOT, "remote-bench: %s %.1f s (%s)%n", name, r.get("wall_s").asDouble(),
        r.path("counters").path("records of unchanged files (not read)").asText("-") + " records not read");
  }

  /**
   * A searcher following the bucket (what {@code kiln serve} does): downloads the snapshot the step
   * published into its cache, which holds the one before; records the switch's time and bytes.
   */
  private static void follow(SnapshotMirror follower, Map<String, Object> result, String step) throws IOException {
    String id = ((JsonNode) result.get(step)).get("snapshot").asText();
    long t0 = System.nanoTime();
    follower.localizeForServing(id);
    double seconds = (System.nanoTime() - t0) / 1e9;
    SnapshotMirror.Localized got = follower.last();
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("switch_s", seconds);
    f.put("serving_bytes", got.bytes());
    f.put("downloaded_bytes", got.downloadedBytes());
    f.put("linked_bytes", got.linkedBytes());
    result.put(step + "_follower", f);
    System.err.printf(Locale.ROOT, "remote-bench: follower of %s: %.1f s, %d of %d bytes downloaded%n", step, seconds,
        got.downloadedBytes(), got.bytes());
  }

  private static void upload(S3Server s3, Path corpus) throws IOException {
    try (Stream<Path> files = Files.list(corpus)) {
      for (Path f : files.sorted().toList()) {
        s3.putFile("corpus/" + f.getFileName(), f);
      }
    }
  }
}
