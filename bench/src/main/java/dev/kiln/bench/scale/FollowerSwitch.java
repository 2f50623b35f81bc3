package dev.kiln.bench.scale;

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
import java.util.Map;
import java.util.stream.Stream;

/**
 * A searcher following a bucket (what {@code kiln serve} does) switching to a new snapshot: downloads
 * it into its cache, which holds the ones before, and records the switch's time and bytes, the bytes it
 * hashed again, and then how long plain GETs of the very files it downloaded take (same store, same
 * page cache state: the objects were just uploaded), so the switch can be set against the pure
 * transfer of its bytes. Shared by {@link RemotePairs} and {@link RemoteDriftBench}.
 */
final class FollowerSwitch {
  private final SnapshotStore remoteStore;
  private final SnapshotMirror follower;
  private final Path scratch;

  FollowerSwitch(SnapshotStore remoteStore, SnapshotMirror follower, Path scratch) {
    this.remoteStore = remoteStore;
    this.follower = follower;
    this.scratch = scratch;
  }

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
    f.put("hashed_again_bytes", got.hashedBytes());
    f.putAll(plainGets(id, before));
    // The GETs must cover exactly what the switch downloaded, or their time is not its transfer's.
    f.put("plain_get_matches_download", ((Number) f.get("plain_get_bytes")).longValue() == got.downloadedBytes());
    return f;
  }

  /**
   * Times plain GETs, each written to a file of its own, of the files the follower downloaded: in its
   * copy those have one link, where a file it took from an earlier copy has two or more (the mirror
   * hard-links shared files, and no earlier copy is removed before this runs), and a new inode (a
   * download lands by a rename), where a file already here before the switch ({@code before}) keeps its own.
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
}
