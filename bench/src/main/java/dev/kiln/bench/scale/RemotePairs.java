package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.SnapshotMirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The measured steps of {@link RemoteScaleBench}: a build on the local disk or into the bucket, each in
 * its own JVM ({@link KilnBuildStep}), an alternated pair of both, and the following searcher's switch
 * to a remote build's snapshot. Every step records the machine's load average as it starts.
 */
final class RemotePairs {
  private final String heap;
  private final Path logs;
  private final List<String> localArgs;
  private final List<String> remoteArgs;
  private final SnapshotStore localStore;
  private final SnapshotStore remoteStore;
  /** The bucket's snapshots prefix on s3proxy's disk: its growth is what a remote build uploaded. */
  private final Path bucketSnapshots;
  private final SnapshotMirror follower;
  private final Path scratch;

  RemotePairs(String heap, Path logs, List<String> localArgs, List<String> remoteArgs, SnapshotStore localStore,
      SnapshotStore remoteStore, Path bucketSnapshots, SnapshotMirror follower, Path scratch) {
    this.heap = heap;
    this.logs = logs;
    this.localArgs = localArgs;
    this.remoteArgs = remoteArgs;
    this.localStore = localStore;
    this.remoteStore = remoteStore;
    this.bucketSnapshots = bucketSnapshots;
    this.follower = follower;
    this.scratch = scratch;
  }

  /**
   * One pair: the local and the remote build of the same corpus, local first when {@code round} is even
   * (L,R then R,L then L,R …, so neither side always runs on the page cache the other left), then the
   * follower's switch to the remote build's snapshot.
   */
  Map<String, Object> pair(String kind, int round) throws IOException, InterruptedException {
    boolean localFirst = round % 2 == 0;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("round", round + 1);
    out.put("order", localFirst ? List.of("local", "remote") : List.of("remote", "local"));
    Map<String, Object> local = null;
    Map<String, Object> remote = null;
    for (boolean isLocal : localFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
      String name = kind + "-" + (isLocal ? "local" : "remote") + "-r" + (round + 1);
      if (isLocal) {
        local = build(name, false);
      } else {
        remote = build(name, true);
      }
    }
    out.put("local", local);
    out.put("remote", remote);
    out.put("follower", follow((String) remote.get("snapshot")));
    return out;
  }

  /** One build in its own JVM: wall time, the snapshot's bytes, and for the bucket what it uploaded. */
  Map<String, Object> build(String name, boolean remote) throws IOException, InterruptedException {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("load_average", ScaleBench.loadAverage());
    long before = remote ? KilnBuildStep.bytes(bucketSnapshots) : 0;
    JsonNode r = ChildRun.run(heap, logs.resolve(name + ".log"), KilnBuildStep.class,
        (remote ? remoteArgs : localArgs).toArray(new String[0]));
    String id = r.get("snapshot").asText();
    out.put("snapshot", id);
    out.put("wall_s", r.get("wall_s").asDouble());
    Manifest m = (remote ? remoteStore : localStore).manifest(id);
    out.put("format_version", m.formatVersion());
    SnapshotBytes sizes = SnapshotBytes.of(m, id);
    out.put("snapshot_bytes", sizes.listed());
    out.put("snapshot_own_bytes", sizes.own());
    if (remote) {
      out.put("bucket_bytes_uploaded", KilnBuildStep.bytes(bucketSnapshots) - before);
    }
    JsonNode counters = r.path("manifest_counters");
    out.put("shard_bytes_uploaded", counters.path("shards.bytes.uploaded").asLong(0));
    out.put("docstore_bytes_uploaded", counters.path("parents.bytes.uploaded").asLong(0));
    out.put("base_bytes_read", counters.path("base.bytes.read").asLong(0));
    out.put("build", r);
    System.err.printf(Locale.ROOT, "remote-bench: %s %.1f s, snapshot %d bytes%s%n", name, r.get("wall_s").asDouble(),
        sizes.listed(), remote ? ", " + out.get("bucket_bytes_uploaded") + " bytes uploaded" : "");
    return out;
  }

  /** The follower's switch to {@code id} ({@link FollowerSwitch}). */
  Map<String, Object> follow(String id) throws IOException {
    Map<String, Object> f = new FollowerSwitch(remoteStore, follower, scratch).follow(id);
    System.err.printf(Locale.ROOT, "remote-bench: follower of %s: %.2f s, %d of %d bytes downloaded (plain GET %.2f s)%n",
        id, (double) f.get("switch_s"), (long) f.get("downloaded_bytes"), (long) f.get("serving_bytes"),
        (double) f.get("plain_get_s"));
    return f;
  }

  /** A snapshot's listed bytes (shards, stored vectors, docstore, corpus listing) and those it holds itself. */
  record SnapshotBytes(long listed, long own) {
    static SnapshotBytes of(Manifest m, String id) {
      List<Manifest.FileEntry> all = new ArrayList<>();
      m.shards().forEach(s -> all.addAll(s.files()));
      if (m.embeddings() != null) {
        all.addAll(m.embeddings().files());
      }
      if (m.docstore() != null) {
        all.addAll(m.docstore().files());
      }
      long listed = m.corpusFiles() == null ? 0 : m.corpusFiles().size();
      long own = listed;
      for (Manifest.FileEntry f : all) {
        listed += f.size();
        own += f.referenced(id) ? 0 : f.size();
      }
      return new SnapshotBytes(listed, own);
    }
  }
}
