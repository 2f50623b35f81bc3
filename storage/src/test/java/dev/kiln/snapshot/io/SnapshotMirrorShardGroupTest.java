package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.ShardFilter;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.Verification;
import dev.kiln.snapshot.VerifiedRecord;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard group's copy of a remote root holds its own shards only: their files and docstore parts are
 * downloaded, verified and counted, the other shards are never fetched (damage there changes nothing),
 * an earlier run's copies of them are removed, and a next snapshot referencing the group's unchanged
 * files (format version 2) costs the download of its new files only. And a file shared by several
 * earlier copies is linked from one whose {@code VERIFIED} record vouches for it, not hashed again.
 */
class SnapshotMirrorShardGroupTest {
  @TempDir Path remote;
  @TempDir Path cache;

  /** Shards {@code from}–{@code to}, as {@code dev.kiln.search.ShardSelection} selects them. */
  record Range(int from, int to) implements ShardFilter {
    @Override
    public boolean all() {
      return false;
    }

    @Override
    public boolean contains(int shard) {
      return shard >= from && shard <= to;
    }

    @Override
    public List<Manifest.ShardEntry> select(Manifest m) {
      if (to >= m.shards().size()) {
        throw new SnapshotException("snapshot " + m.id() + " has " + m.shards().size() + " shard(s)");
      }
      return m.shards().stream().filter(s -> contains(s.shard())).toList();
    }
  }

  /**
   * Four shards, each with a segment and a docstore part; shards listed in {@code keepFrom} reference
   * that snapshot's files instead of holding their own.
   */
  private Manifest publish(Manifest keepFrom, List<Integer> kept) throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    SnapshotLayout layout = new SnapshotLayout(remote);
    List<Manifest.ShardEntry> shards = new ArrayList<>();
    List<Manifest.FileEntry> docstore = new ArrayList<>();
    for (int s = 0; s < 4; s++) {
      if (kept.contains(s)) {
        Manifest.ShardEntry was = keepFrom.shards().get(s);
        shards.add(new Manifest.ShardEntry(s, was.directory(), 1, 1,
            was.files().stream().map(f -> f.sharedFrom(keepFrom.id())).toList()));
        String part = was.directory() + "/";
        keepFrom.docstore().files().stream().filter(f -> f.name().startsWith(part))
            .forEach(f -> docstore.add(f.sharedFrom(keepFrom.id())));
        continue;
      }
      Path f = Files.createDirectories(layout.shardDir(id, s)).resolve("_0.cfs");
      Files.writeString(f, ("segment of shard " + s + " in " + id + " ").repeat(10 + s));
      shards.add(new Manifest.ShardEntry(s, SnapshotLayout.shardDirName(s), 1, 1,
          List.of(new Manifest.FileEntry("_0.cfs", Files.size(f), Checksums.sha256(f)))));
      Path p = Files.createDirectories(layout.parentsDir(id, s)).resolve("_0.cfs");
      Files.writeString(p, "parents of shard " + s + " in " + id);
      docstore.add(new Manifest.FileEntry(SnapshotLayout.shardDirName(s) + "/_0.cfs", Files.size(p),
          Checksums.sha256(p)));
    }
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-07T00:00:00Z", null,
        new Manifest.ModelInfo("m", 3, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(), shards, null, null,
        new Manifest.DocstoreEntry(SnapshotLayout.PARENTS, "lucene-stored-v1", 4, docstore));
    Files.createDirectories(layout.manifest(id).getParent()); // none yet when every shard is referenced
    SnapshotStore.json().writeValue(layout.manifest(id).toFile(), m);
    Files.writeString(layout.current(), id + "\n");
    return m;
  }

  private static long bytesOf(Manifest m, ShardFilter group) {
    long shardBytes = group.select(m).stream().flatMap(s -> s.files().stream()).mapToLong(Manifest.FileEntry::size)
        .sum();
    return shardBytes + group.docstoreFiles(m, m.docstore()).stream().mapToLong(Manifest.FileEntry::size).sum();
  }

  private static TreeSet<String> held(Path dir) throws Exception {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static void flip(Path file) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(3);
      int b = f.read();
      f.seek(3);
      f.write(b ^ 1);
    }
  }

  private SnapshotMirror mirror() {
    return new SnapshotMirror(new LocalSnapshotStorage(remote), "test://remote", cache);
  }

  /** What a group of shards 1-2 holds of snapshot {@code id}. */
  private static TreeSet<String> groupFiles() {
    return new TreeSet<>(List.of("VERIFIED", "manifest.json", "parents/shard-00001/_0.cfs",
        "parents/shard-00002/_0.cfs", "shard-00001/_0.cfs", "shard-00002/_0.cfs"));
  }

  @Test
  void aGroupDownloadsVerifiesAndKeepsItsOwnShardsOnly() throws Exception {
    Manifest v1 = publish(null, List.of());
    SnapshotLayout remoteLayout = new SnapshotLayout(remote);
    // Damage outside the group: never fetched, so never noticed.
    flip(remoteLayout.shardDir(v1.id(), 3).resolve("_0.cfs"));
    ShardFilter group = new Range(1, 2);
    SnapshotMirror mirror = mirror();
    Path local = mirror.localizeForServing(v1.id(), group);
    SnapshotLayout localLayout = new SnapshotLayout(local);
    assertEquals(groupFiles(), held(localLayout.snapshotDir(v1.id())));
    SnapshotMirror.Localized first = mirror.last();
    assertEquals(4, first.files());
    assertEquals(4, first.downloaded());
    assertEquals(bytesOf(v1, group), first.downloadedBytes(), "the group's bytes, not the snapshot's");
    assertTrue(first.downloadedBytes() < bytesOf(v1, ShardFilter.EVERY) / 2 + 200);
    assertEquals(4, new SnapshotStore(local).verifiedRecord(v1.id()).orElseThrow().files());
    assertEquals(4, new SnapshotStore(local).openForServing(v1.id(), Verification.FULL, group).files());

    // The next snapshot keeps shards 0 and 1 by reference: the group links shard 1 and fetches shard 2.
    Manifest v2 = publish(v1, List.of(0, 1));
    mirror.localizeForServing(v2.id(), group);
    SnapshotMirror.Localized second = mirror.last();
    assertEquals(bytesOf(v2, new Range(2, 2)), second.downloadedBytes(), "only shard 2's new files");
    assertEquals(2, second.linked(), "shard 1's segment and docstore part, from the copy of " + v1.id());
    assertEquals(groupFiles(), held(localLayout.snapshotDir(v2.id())));

    // A damaged file of the group is refused, named.
    Manifest v3 = publish(null, List.of());
    flip(remoteLayout.shardDir(v3.id(), 2).resolve("_0.cfs"));
    String refused = assertThrows(SnapshotException.class, () -> mirror.localizeForServing(v3.id(), group))
        .getMessage();
    assertTrue(refused.contains("shard-00002/_0.cfs: sha256"), refused);
  }

  @Test
  void anEarlierCopyOfEveryShardShrinksToTheGroup() throws Exception {
    Manifest v1 = publish(null, List.of());
    SnapshotMirror mirror = mirror();
    Path local = mirror.localizeForServing(v1.id());
    Path dir = new SnapshotLayout(local).snapshotDir(v1.id());
    assertEquals(10, held(dir).size(), "four shards, four docstore parts, the manifest and VERIFIED");
    mirror.localizeForServing(v1.id(), new Range(1, 2));
    assertEquals(groupFiles(), held(dir));
    assertEquals(0, mirror.last().downloaded(), "the group's files were already here");
    assertFalse(Files.exists(dir.resolve("shard-00000")), "no empty directory of another group is left");
    assertFalse(Files.exists(dir.resolve("parents/shard-00003")));
  }

  @Test
  void aGroupPastTheSnapshotsShardsIsRefusedBeforeAnyDownload() throws Exception {
    Manifest v1 = publish(null, List.of());
    SnapshotMirror mirror = mirror();
    assertThrows(SnapshotException.class, () -> mirror.localizeForServing(v1.id(), new Range(3, 4)));
    assertFalse(Files.exists(new SnapshotLayout(cache).snapshotDir(v1.id())), "nothing was fetched");
  }

  @Test
  void aSharedFileIsLinkedFromACopyWhoseRecordVouchesForItWithoutHashingIt() throws Exception {
    Manifest v1 = publish(null, List.of());
    SnapshotMirror mirror = mirror();
    mirror.localizeForServing(v1.id());
    // Touching v1's files (times only, bytes intact) ends what v1's record vouches for; v2's record,
    // written after the window, vouches for the same files (hard links: one inode, one identity).
    touchFiles(mirror.local().snapshotDir(v1.id()));
    Thread.sleep(VerifiedRecord.RACY.toMillis() + 200);
    Manifest v2 = publish(v1, List.of(0, 1, 2, 3));
    mirror.localizeForServing(v2.id());
    SnapshotMirror.Localized second = mirror.last();
    assertEquals(8, second.linked());
    assertEquals(second.bytes(), second.hashedBytes(), "only v1's copies exist, and its record vouches for none");

    Manifest v3 = publish(v1, List.of(0, 1, 2, 3));
    mirror.localizeForServing(v3.id());
    SnapshotMirror.Localized third = mirror.last();
    assertEquals(8, third.linked());
    assertEquals(0, third.downloaded());
    assertEquals(0, third.hashedBytes(), "linked from v2's copy, whose record vouches, not hashed from v1's");
  }

  @Test
  void aFileThisMirrorDownloadedIsVouchedForByItsOwnRecordAtOnce() throws Exception {
    Manifest v1 = publish(null, List.of());
    SnapshotMirror mirror = mirror();
    mirror.localizeForServing(v1.id());
    // No wait: the next switch comes right after the download, within VerifiedRecord.RACY of it.
    Manifest v2 = publish(v1, List.of(0, 1, 2, 3));
    mirror.localizeForServing(v2.id());
    SnapshotMirror.Localized second = mirror.last();
    assertEquals(8, second.linked());
    assertEquals(0, second.downloaded());
    assertEquals(0, second.hashedBytes(), "the downloads were settled out of the racy window before being hashed");
    // Settling never hides a change: a file rewritten after the download (same size) is not vouched for,
    // so the next switch hashes it, finds it damaged and downloads it again.
    Path damaged = mirror.local().snapshotDir(v1.id()).resolve("shard-00000/_0.cfs");
    flip(damaged);
    Manifest v3 = publish(v1, List.of(0, 1, 2, 3));
    // A local root reads a shared file through the referencing snapshot's own link, as a build makes it.
    SnapshotLayout remoteLayout = new SnapshotLayout(remote);
    Files.createDirectories(remoteLayout.shardDir(v3.id(), 0));
    Files.createLink(remoteLayout.shardDir(v3.id(), 0).resolve("_0.cfs"),
        remoteLayout.shardDir(v1.id(), 0).resolve("_0.cfs"));
    mirror.localizeForServing(v3.id());
    SnapshotMirror.Localized third = mirror.last();
    assertEquals(1, third.downloaded(), "the damaged file, downloaded again");
    assertEquals(v1.shards().get(0).files().get(0).sha256(),
        Checksums.sha256(mirror.local().snapshotDir(v3.id()).resolve("shard-00000/_0.cfs")));
  }

  private static void touchFiles(Path dir) throws Exception {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        String name = p.getFileName().toString();
        if (!name.equals(SnapshotLayout.MANIFEST) && !name.equals(SnapshotLayout.VERIFIED)) {
          Files.setLastModifiedTime(p, FileTime.from(Instant.now()));
        }
      }
    }
  }
}
