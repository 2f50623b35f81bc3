package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.SnapshotMirror;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

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

  /**
   * A searcher following the bucket (what {@code kiln serve} does): downloads the snapshot into its
   * cache, which holds the ones before; records the switch's time and bytes, and then how long plain
   * GETs of the very files it downloaded take (same store, same page cache state: the objects were
   * just uploaded), so the switch can be set against the pure transfer of its bytes.
   */
  Map<String, Object> follow(String id) throws IOException {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("load_average", ScaleBench.loadAverage());
    Map<Path, Object> before = inodes(follower.local().snapshotDir(id));
    long t0 = System.nanoTime();
    follower.localizeForServing(id);
    double seconds = (System.nanoTime() - t0) / 1e9;
    SnapshotMirror.Localized got = follower.last();
    f.put("switch_s", seconds);
    f.put("serving_bytes", got.bytes());
    f.put("downloaded_files", got.downloaded());
    f.put("downloaded_bytes", got.downloadedBytes());
    f.put("linked_bytes", got.linkedBytes());
    f.putAll(plainGets(id, before));
    // The GETs must cover exactly what the switch downloaded, or their time is not its transfer's.
    f.put("plain_get_matches_download", ((Number) f.get("plain_get_bytes")).longValue() == got.downloadedBytes());
    System.err.printf(Locale.ROOT, "remote-bench: follower of %s: %.2f s, %d of %d bytes downloaded (plain GET %.2f s)%n",
        id, seconds, got.downloadedBytes(), got.bytes(), (double) f.get("plain_get_s"));
    return f;
  }

  /**
   * Times plain GETs, each written to a file of its own, of the files the follower downloaded: in its
   * copy those have one link, where a file it took from an earlier copy has two or more (the mirror
   * hard-links shared files, and the bench removes no earlier copy), and a new inode (a download lands
   * by a rename), where a file already here before the switch ({@code before}) keeps its own.
   */
  private Map<String, Object> plainGets(String id, Map<Path, Object> before) throws IOException {
    Manifest m = remoteStore.manifest(id);
    Path dir = follower.local().snapshotDir(id);
    SnapshotStorage storage = follower.storage();
    List<String> keys = new ArrayList<>();
    for (Manifest.ShardEntry s : m.shards()) {
      for (Manifest.FileEntry e : s.servingFiles()) {
        addIfDownloaded(keys, storage, id, dir, s.directory(), e, before);
      }
    }
    if (m.docstore() != null) {
      for (Manifest.FileEntry e : m.docstore().files()) {
        addIfDownloaded(keys, storage, id, dir, m.docstore().directory(), e, before);
      }
    }
    Path into = Files.createDirectories(scratch.resolve("get-" + id));
    long bytes = 0;
    long t0 = System.nanoTime();
    for (int i = 0; i < keys.size(); i++) {
      try (InputStream in = storage.open(keys.get(i))) {
        bytes += Files.copy(in, into.resolve(Integer.toString(i)));
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    LocalFiles.deleteTree(into);
    return Map.of("plain_get_s", seconds, "plain_get_bytes", bytes);
  }

  private static void addIfDownloaded(List<String> keys, SnapshotStorage storage, String id, Path dir, String directory,
      Manifest.FileEntry e, Map<Path, Object> before) throws IOException {
    Path file = dir.resolve(directory).resolve(e.name());
    if (((Number) Files.getAttribute(file, "unix:nlink")).intValue() == 1
        && !Files.getAttribute(file, "unix:ino").equals(before.get(file))) {
      keys.add(storage.fileKey(id, directory, e));
    }
  }

  /** The inode of each file under {@code dir} (none when it is absent). */
  private static Map<Path, Object> inodes(Path dir) throws IOException {
    Map<Path, Object> out = new HashMap<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path p : walk.filter(Files::isRegularFile).toList()) {
          out.put(p, Files.getAttribute(p, "unix:ino"));
        }
      }
    }
    return out;
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
