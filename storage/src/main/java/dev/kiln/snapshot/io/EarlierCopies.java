package dev.kiln.snapshot.io;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.FileIdentity;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.VerifiedRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The verified files of the snapshots a local copy of a remote root already holds, by what makes two
 * files the same for a reader: their path in the snapshot, size and SHA-256. A file is offered when its
 * snapshot's {@code VERIFIED} record (for that very manifest) vouches for it — unchanged since it was
 * hashed — or else when hashing it here matches, so a file damaged in the cache is downloaded again
 * rather than linked. Of several copies of one file (hard links of one inode, each snapshot's record
 * holding its identity), the first whose record vouches for it is taken, newest first: an older copy's
 * record may not vouch (a version 1 record, or one written within {@link VerifiedRecord#RACY} of the
 * file before the mirror settled its downloads), and preferring it would hash the file at every later
 * switch.
 */
final class EarlierCopies {
  /** One file of an earlier copy, and what vouches for it. */
  private record Copy(Path path, String name, VerifiedRecord record, long recordNanos) {}

  private final Map<String, List<Copy>> byContent = new HashMap<>();
  private long hashedBytes;

  private EarlierCopies() {}

  /** The copies under {@code local} of every snapshot but {@code except}; unreadable ones are skipped. */
  static EarlierCopies scan(SnapshotLayout local, String except) throws IOException {
    EarlierCopies copies = new EarlierCopies();
    Path dir = local.snapshotsDir();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return copies;
    }
    List<String> ids;
    try (Stream<Path> list = Files.list(dir)) {
      ids = list.map(p -> p.getFileName().toString())
          .filter(n -> SnapshotLayout.isSnapshotId(n) && !n.equals(except)).sorted(Comparator.reverseOrder()).toList();
    }
    SnapshotStore store = new SnapshotStore(local.root());
    for (String id : ids) {
      try {
        copies.add(store, local, id);
      } catch (IOException | RuntimeException e) {
        // an incomplete or damaged copy offers nothing: its files are downloaded instead
      }
    }
    return copies;
  }

  private void add(SnapshotStore store, SnapshotLayout local, String id) throws IOException {
    Path manifest = local.manifest(id);
    if (!Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)
        || Files.size(manifest) > SnapshotLayout.MAX_MANIFEST_BYTES) {
      return;
    }
    byte[] bytes = Files.readAllBytes(manifest);
    Manifest m = SnapshotStore.parseManifest(id, bytes);
    String sha = Checksums.sha256(bytes);
    VerifiedRecord record = store.verifiedRecord(id).filter(r -> sha.equals(r.manifestSha256())).orElse(null);
    if (record == null) {
      return;
    }
    long nanos = Files.getLastModifiedTime(local.root().resolve(SnapshotLayout.verifiedKey(id)))
        .to(TimeUnit.NANOSECONDS);
    Path snapshotDir = local.snapshotDir(id);
    for (Manifest.ShardEntry s : m.shards()) {
      add(snapshotDir, s.directory(), s.files(), record, nanos);
    }
    if (m.docstore() != null) {
      add(snapshotDir, m.docstore().directory(), m.docstore().files(), record, nanos);
    }
    if (m.embeddings() != null) {
      add(snapshotDir, m.embeddings().directory(), m.embeddings().files(), record, nanos);
    }
  }

  private void add(Path snapshotDir, String directory, List<Manifest.FileEntry> files, VerifiedRecord record,
      long nanos) {
    for (Manifest.FileEntry f : files) {
      String name = directory + "/" + f.name();
      byContent.computeIfAbsent(key(name, f), k -> new ArrayList<>())
          .add(new Copy(snapshotDir.resolve(name), name, record, nanos));
    }
  }

  private static String key(String name, Manifest.FileEntry f) {
    return name + '\n' + f.size() + '\n' + f.sha256();
  }

  /**
   * A verified local file with the bytes {@code f} lists for {@code name} (its path in the snapshot),
   * or null when no earlier copy holds one its record still vouches for.
   */
  Path find(String name, Manifest.FileEntry f) throws IOException {
    List<Copy> copies = byContent.get(key(name, f));
    if (copies == null) {
      return null;
    }
    Copy unvouched = null;
    for (Copy c : copies) {
      if (!Files.isRegularFile(c.path(), LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      FileIdentity now = FileIdentity.of(Files.readAttributes(c.path(), BasicFileAttributes.class));
      if (now.size() != f.size()) {
        continue;
      }
      if (c.record().vouchesFor(c.name(), now, c.recordNanos())) {
        return c.path();
      }
      if (unvouched == null) {
        unvouched = c;
      }
    }
    if (unvouched == null) {
      return null;
    }
    // No record vouches (changed since, or checked in the same clock tick as its record was written):
    // hashing the local copy still costs a disk read, not a download.
    hashedBytes += f.size();
    return f.sha256().equals(Checksums.sha256(unvouched.path())) ? unvouched.path() : null;
  }

  /** Bytes {@link #find} hashed because no record vouched for a copy. */
  long hashedBytes() {
    return hashedBytes;
  }

}
