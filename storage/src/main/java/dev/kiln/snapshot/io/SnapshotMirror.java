package dev.kiln.snapshot.io;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.FileIdentity;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SafePaths;
import dev.kiln.snapshot.ShardFilter;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.VerifiedRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshots root on a remote store, seen through a local copy: Lucene needs random access to its
 * files, so a snapshot is downloaded into a local root with the same layout and opened from there.
 * Downloads follow only {@code CURRENT → manifest → files}, through the root's
 * {@link SnapshotStorage}, and every file is checked against the manifest's size and SHA-256 as it
 * arrives (a file already here is kept only if it still matches), so a corrupt object is refused
 * before the searcher sees it.
 */
public final class SnapshotMirror {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotMirror.class);

  private final String remoteRoot;
  private final SnapshotLayout local;
  private SnapshotStorage storage;
  private Localized last;
  /** Of the localize under way: bytes downloaded, bytes linked, the earlier copies here (scanned once). */
  private long fetched;
  private long linked;
  /** Bytes of local files hashed by the last localize because no record vouched for them. */
  private long hashed;
  private EarlierCopies copies;

  /**
   * The shared local mirror of a remote root ({@link RemoteRoots#localMirror}), reached through the
   * root's own storage ({@link RemoteStorages#open}) with {@code settings}: what a one-off search or
   * the searcher library downloads into.
   */
  public static SnapshotMirror of(String remoteRoot, Map<String, String> settings) {
    return new SnapshotMirror(RemoteStorages.open(remoteRoot, settings), remoteRoot, RemoteRoots.localMirror(remoteRoot));
  }

  /** A mirror whose storage takes its S3 settings from the environment (see {@link S3Settings}). */
  public SnapshotMirror(String remoteRoot, Path localRoot) {
    this(null, remoteRoot, localRoot);
  }

  public SnapshotMirror(SnapshotStorage storage, String remoteRoot, Path localRoot) {
    this.storage = storage;
    this.remoteRoot = remoteRoot;
    this.local = new SnapshotLayout(localRoot);
  }

  public SnapshotLayout local() {
    return local;
  }

  public synchronized SnapshotStorage storage() {
    if (storage == null) {
      storage = RemoteStorages.open(remoteRoot, Map.of());
    }
    return storage;
  }



  /** The id the remote {@code CURRENT} names, or {@code null} when nothing was published. */
  public String remoteCurrent() {
    return new SnapshotStore(local, storage()).current().orElse(null);
  }

  /**
   * Downloads a published snapshot ({@code id}, or the one {@code CURRENT} names when null) and
   * points the local {@code CURRENT} at it. The manifest is size-capped and structure-checked and
   * every name in it resolved inside the local snapshot directory ({@link SafePaths}) before anything
   * is written; files already here are kept if their sizes match and a local {@code VERIFIED} record
   * covers this manifest (else they are hashed again); files of the local copy that the manifest does
   * not list are removed (the cache is ours).
   *
   * @return the local root to open
   */
  public Path localize(String id) throws IOException {
    return localize(id, true, ShardFilter.EVERY);
  }

  /**
   * As {@link #localize(String)}, but only the files a searcher reads (shards and the parents
   * docstore, not the stored vectors, the corpus files listing nor the shards' fingerprint files):
   * what {@code kiln search} and
   * {@code kiln serve} need. The local {@code VERIFIED} record then says so
   * ({@code by: download-serving}) and counts only those files.
   */
  public Path localizeForServing(String id) throws IOException {
    return localize(id, false, ShardFilter.EVERY);
  }

  /**
   * As {@link #localizeForServing(String)}, but only the shards {@code shards} selects (their files
   * and their parts of the parents docstore; the manifest is the one snapshot-wide file a searcher
   * reads): what a shard group ({@code kiln serve --shards}) serves. Files of other shards are never
   * downloaded, and removed from the local copy if an earlier run left them there; the local
   * {@code VERIFIED} record counts and vouches for the selected files only.
   *
   * @throws dev.kiln.snapshot.SnapshotException before any download when {@code shards} names shards
   *     the snapshot does not have
   */
  public Path localizeForServing(String id, ShardFilter shards) throws IOException {
    return localize(id, false, shards);
  }

  private synchronized Path localize(String id, boolean vectors, ShardFilter shards) throws IOException {
    String snapshot = id != null ? SnapshotLayout.checkId(id) : remoteCurrent();
    if (snapshot == null) {
      throw new SnapshotException("no published snapshot under " + remoteRoot + " (no CURRENT)");
    }
    byte[] manifestBytes = storage().read(SnapshotLayout.manifestKey(snapshot), SnapshotLayout.MAX_MANIFEST_BYTES)
        .orElseThrow(() -> new SnapshotException("snapshot " + snapshot + " has no manifest under " + remoteRoot));
    Manifest m = SnapshotStore.parseManifest(snapshot, manifestBytes);
    List<Manifest.ShardEntry> selected = shards.select(m);
    String manifestSha = Checksums.sha256(manifestBytes);
    SnapshotStore localStore = new SnapshotStore(local.root());
    Path localManifest = local.manifest(snapshot);
    VerifiedRecord record = Files.isRegularFile(localManifest) && Files.size(localManifest) == manifestBytes.length
        ? localStore.verifiedRecord(snapshot).filter(r -> manifestSha.equals(r.manifestSha256())).orElse(null) : null;
    Path recordFile = local.root().resolve(SnapshotLayout.verifiedKey(snapshot));
    Trust trust = new Trust(record, record == null ? Long.MIN_VALUE
        : Files.getLastModifiedTime(recordFile).to(TimeUnit.NANOSECONDS), new TreeMap<>());
    Path dir = local.snapshotDir(snapshot);
    Set<Path> expected = new HashSet<>();
    int[] counts = new int[3]; // fetched, files, linked from an earlier copy
    long bytes = 0;
    fetched = 0;
    linked = 0;
    hashed = 0;
    copies = null;
    for (Manifest.ShardEntry shard : selected) {
      // A serving copy leaves out what no searcher reads: the shard's fingerprint file too.
      bytes += fetch(snapshot, shard.directory(), vectors ? shard.files() : shard.servingFiles(), trust, expected,
          counts);
    }
    if (vectors && m.embeddings() != null) {
      bytes += fetch(snapshot, m.embeddings().directory(), m.embeddings().files(), trust, expected, counts);
    }
    if (m.docstore() != null) {
      bytes += fetch(snapshot, m.docstore().directory(), shards.docstoreFiles(m, m.docstore()), trust, expected,
          counts);
    }
    Manifest.CorpusFilesEntry corpus = m.corpusFiles();
    if (vectors && corpus != null) {
      // No searcher reads it, but a whole copy holds every file its VERIFIED record vouches for.
      bytes += fetch(snapshot, null, List.of(new Manifest.FileEntry(SnapshotLayout.CORPUS_FILES, corpus.size(),
          corpus.sha256())), trust, expected, counts);
    }
    removeUnlisted(dir, expected);
    // The manifest last, as on the remote side: a local copy is complete once it has one.
    writeLocal(localManifest, manifestBytes);
    writeLocal(recordFile, SnapshotStore.json().writeValueAsBytes(
        new VerifiedRecord(VerifiedRecord.FORMAT_VERSION, manifestSha, Instant.now().toString(),
            vectors ? "download" : "download-serving", counts[1], bytes, trust.seen(), null)));
    writeLocal(local.current(), (snapshot + "\n").getBytes(StandardCharsets.UTF_8));
    long rehashed = hashed + (copies == null ? 0 : copies.hashedBytes());
    last = new Localized(snapshot, counts[1], bytes, counts[0], fetched, counts[2], linked, rehashed);
    LOG.info("snapshot {} of {}, {}: {} files ({} bytes) downloaded and verified, {} ({} bytes) linked from"
        + " earlier copies, {} of {} listed files already here, {} bytes hashed again; into {}", snapshot, remoteRoot,
        shards.describe(m), counts[0], fetched, counts[2], linked, counts[1] - counts[0] - counts[2], counts[1],
        rehashed, local.root());
    return local.root();
  }

  /**
   * Removes every local snapshot copy but those in {@code keep}, so that a long-running reader of a
   * remote root (the HTTP service) holds a bounded number of snapshots. Files still open by a searcher
   * stay readable until it closes them (POSIX unlink), but callers keep what they serve anyway.
   *
   * @return the ids removed
   */
  public List<String> retainOnly(Set<String> keep) throws IOException {
    Path dir = local.snapshotsDir();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    List<Path> drop;
    try (Stream<Path> list = Files.list(dir)) {
      drop = list.filter(p -> !keep.contains(p.getFileName().toString())).sorted().toList();
    }
    List<String> removed = new ArrayList<>();
    for (Path p : drop) {
      LocalFiles.deleteTree(p);
      removed.add(p.getFileName().toString());
    }
    if (!removed.isEmpty()) {
      LOG.info("local copy of {}: removed snapshots {} (keeping {})", remoteRoot, removed, keep);
    }
    return removed;
  }

  /**
   * What vouches for the files of the local copy: its {@code VERIFIED} record for this very manifest
   * (or null) and the record's own modification time; {@code seen} collects the identity of each file
   * as it is checked or downloaded, before it is hashed, for the new record.
   */
  private record Trust(VerifiedRecord record, long recordModifiedNanos, Map<String, FileIdentity> seen) {
    boolean vouchesFor(String name, FileIdentity now) {
      return record != null && record.vouchesFor(name, now, recordModifiedNanos);
    }
  }

  private static FileIdentity identity(Path file) throws IOException {
    return FileIdentity.of(Files.readAttributes(file, BasicFileAttributes.class));
  }

  /**
   * Downloads the listed files of one directory of a snapshot that are not already here intact: a file
   * here is kept when its size matches and the local record vouches for it (it is unchanged since it
   * was verified), or when its SHA-256 matches the manifest.
   *
   * @param directory the directory, or null for files at the top of the snapshot
   * @return bytes listed; {@code counts}: [downloaded, listed, linked from an earlier copy]
   */
  private long fetch(String snapshot, String directory, List<Manifest.FileEntry> files, Trust trust,
      Set<Path> expected, int[] counts) throws IOException {
    long bytes = 0;
    for (Manifest.FileEntry f : files) {
      String name = directory == null ? f.name() : directory + "/" + f.name();
      Path target = SafePaths.resolve(local.snapshotDir(snapshot), "file", name);
      expected.add(target);
      counts[1]++;
      bytes += f.size();
      if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
        FileIdentity here = identity(target);
        boolean vouched = here.size() == f.size() && trust.vouchesFor(name, here);
        if (!vouched && here.size() == f.size()) {
          hashed += f.size();
        }
        if (vouched || (here.size() == f.size() && f.sha256().equals(Checksums.sha256(target)))) {
          trust.seen().put(name, here);
          continue;
        }
      }
      if (linkEarlierCopy(snapshot, name, f, target)) {
        trust.seen().put(name, identity(target));
        counts[2]++;
        linked += f.size();
        continue;
      }
      // A file the manifest references lives under its owner in the remote root (format version 2).
      download(directory == null ? SafePaths.key(SnapshotLayout.snapshotKey(snapshot), "file", name)
          : storage().fileKey(snapshot, directory, f), target);
      settle(target);
      trust.seen().put(name, identity(target));
      long size = Files.size(target);
      fetched += size;
      String sha = Checksums.sha256(target);
      if (size != f.size() || !sha.equals(f.sha256())) {
        Files.delete(target);
        throw new SnapshotException("snapshot " + snapshot + " under " + remoteRoot + " failed verification and will"
            + " not be used: " + name + ": " + (size != f.size() ? "size " + size + ", manifest says " + f.size()
                : "sha256 " + sha + ", manifest says " + f.sha256()));
      }
      counts[0]++;
    }
    return bytes;
  }

  /**
   * What the last {@link #localize} did: of {@code files} listed ({@code bytes} in all), how many it
   * downloaded, how many it hard-linked from an earlier snapshot's verified copy here, and the bytes of
   * each; the rest were already in place. {@code hashedBytes}: local files (already here, or the copies
   * linked) hashed because no {@code VERIFIED} record vouched for them: a disk read, not a download.
   */
  public record Localized(String snapshot, int files, long bytes, int downloaded, long downloadedBytes,
      int linked, long linkedBytes, long hashedBytes) {}

  /** The last {@link #localize}'s counts, or null before the first. */
  public synchronized Localized last() {
    return last;
  }

  /**
   * Gives {@code target} the bytes of an identical file (same path in its snapshot, size and SHA-256)
   * of an earlier snapshot already here, by a hard link, when that copy's {@code VERIFIED} record still
   * vouches for it: a following searcher then downloads only the files a new snapshot does not share
   * with one it holds — whether the new manifest references the file (format version 2) or lists a copy
   * with the same checksum (version 1). Each copy's directory keeps its own link, so removing an old
   * snapshot ({@link #retainOnly}) never takes a file a newer one needs.
   */
  private boolean linkEarlierCopy(String snapshot, String name, Manifest.FileEntry f, Path target) throws IOException {
    if (copies == null) {
      copies = EarlierCopies.scan(local, snapshot);
    }
    Path source = copies.find(name, f);
    if (source == null) {
      return false;
    }
    Files.createDirectories(target.getParent());
    Files.deleteIfExists(target);
    try {
      Files.createLink(target, source);
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
    return true;
  }

  /** Files of the local snapshot copy that the manifest does not list (older downloads, partial files). */
  private void removeUnlisted(Path dir, Set<Path> expected) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Set<String> keep = Set.of(SnapshotLayout.MANIFEST, SnapshotLayout.VERIFIED);
    List<Path> stale;
    try (Stream<Path> walk = Files.walk(dir)) {
      stale = walk.filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
          .filter(p -> !expected.contains(p) && !(p.getParent().equals(dir) && keep.contains(p.getFileName().toString())))
          .toList();
    }
    for (Path p : stale) {
      LOG.info("removing {} from the local copy: the manifest does not list it (or not for this server's shards)", p);
      Files.deleteIfExists(p);
    }
    // A shard directory emptied so (another group's, left by an earlier run of this cache) goes too.
    List<Path> dirs;
    try (Stream<Path> walk = Files.walk(dir)) {
      dirs = walk.filter(p -> !p.equals(dir) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
          .sorted(Comparator.reverseOrder()).toList();
    }
    for (Path d : dirs) {
      try (Stream<Path> entries = Files.list(d)) {
        if (entries.findAny().isEmpty()) {
          Files.delete(d);
        }
      }
    }
  }

  /**
   * Moves a file this mirror just downloaded out of {@link VerifiedRecord#RACY}: its modification time
   * is set to before the window, ahead of recording its identity and hashing it. Left at the download's
   * time, the record written moments later would not vouch for it, and the next switch, linking it into
   * the next snapshot's copy, would hash it again. This stays race-free because it happens before the
   * identity is taken and the bytes hashed: any write to the file after it sets the time to the present,
   * which no longer matches the identity recorded. Only freshly downloaded files (a new inode of ours)
   * are touched; a file shared with other copies keeps its time, which their records hold.
   */
  private static void settle(Path target) throws IOException {
    Files.setLastModifiedTime(target, FileTime.from(Instant.now().minus(VerifiedRecord.RACY).minusSeconds(1)));
  }

  private void download(String key, Path target) throws IOException {
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling("." + target.getFileName() + ".part");
    try (InputStream in = storage().open(key)) {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static void writeLocal(Path target, byte[] bytes) throws IOException {
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling("." + target.getFileName() + ".part");
    Files.write(tmp, bytes);
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
