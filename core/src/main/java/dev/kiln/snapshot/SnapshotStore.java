package dev.kiln.snapshot;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read side of a snapshots root. Readers follow only {@code CURRENT → manifest → files}; {@code
 * CURRENT} and manifests are read with size caps and manifests checked for structure
 * ({@link ManifestCheck}, {@link SafePaths}) before anything they name is touched. {@link #open}
 * checks every file's size and SHA-256; {@link #openForServing} skips the hashing of each file that a
 * {@code VERIFIED} record for this very manifest vouches for ({@link VerifiedRecord#vouchesFor}). A
 * snapshot exists for readers once its manifest does; anything else under {@code snapshots/} is
 * unfinished data that no reader looks at.
 */
public final class SnapshotStore {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);
  static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final SnapshotLayout layout;
  private final SnapshotStorage storage;

  public SnapshotStore(Path root) {
    this(new SnapshotLayout(root), new LocalSnapshotStorage(root));
  }

  public SnapshotStore(SnapshotLayout layout, SnapshotStorage storage) {
    this.layout = layout;
    this.storage = storage;
  }

  public SnapshotLayout layout() {
    return layout;
  }

  public SnapshotStorage storage() {
    return storage;
  }

  public static ObjectMapper json() {
    return JSON;
  }

  /** The published snapshot id; throws when nothing has been published yet. */
  public String currentId() {
    return current().orElseThrow(() -> new SnapshotException(
        "no published snapshot under " + layout.root() + " (" + SnapshotLayout.CURRENT
            + " is missing): run 'scripts/kiln build' first or pass --snapshots"));
  }

  /** The published snapshot id, or empty when nothing has been published yet. */
  public Optional<String> current() {
    try {
      Optional<byte[]> bytes = storage.read(SnapshotLayout.CURRENT, SnapshotLayout.MAX_CURRENT_BYTES);
      if (bytes.isEmpty()) {
        return Optional.empty();
      }
      String id = new String(bytes.get(), StandardCharsets.UTF_8).trim();
      if (!SnapshotLayout.isSnapshotId(id)) {
        throw new SnapshotException(layout.current() + " does not hold a snapshot id (found '"
            + SafePaths.printable(id) + "')");
      }
      return Optional.of(id);
    } catch (IOException e) {
      throw new SnapshotException("cannot read " + layout.current() + ": " + e.getMessage(), e);
    }
  }

  /** The manifest of {@code id}, structurally checked ({@link ManifestCheck}). */
  public Manifest manifest(String id) {
    return parseManifest(id, manifestBytes(id));
  }

  /** The manifest's bytes as stored (at most {@link SnapshotLayout#MAX_MANIFEST_BYTES}). */
  public byte[] manifestBytes(String id) {
    String key = SnapshotLayout.manifestKey(id);
    try {
      return storage.read(key, SnapshotLayout.MAX_MANIFEST_BYTES).orElseThrow(() -> new NoSuchFileException(key));
    } catch (IOException e) {
      throw new SnapshotException("snapshot " + id + " has no readable manifest (" + layout.manifest(id) + "): "
          + e.getMessage(), e);
    }
  }

  /**
   * Parses a manifest read for snapshot {@code id} and refuses it unless its version is known, it
   * names {@code id} and its structure is sound: every reader goes through here.
   */
  public static Manifest parseManifest(String id, byte[] bytes) {
    Manifest m;
    try {
      m = JSON.readValue(bytes, Manifest.class);
    } catch (IOException e) {
      throw new SnapshotException("snapshot " + id + " has no readable manifest: " + e.getMessage(), e);
    }
    if (m == null) {
      throw new SnapshotException("snapshot " + id + " has an empty manifest");
    }
    if (m.formatVersion() > Manifest.FORMAT_VERSION) {
      throw new SnapshotException("snapshot " + id + " has format version " + m.formatVersion()
          + "; this Kiln reads up to " + Manifest.FORMAT_VERSION + ": upgrade Kiln");
    }
    if (!id.equals(m.id())) {
      throw new SnapshotException("manifest of snapshot " + id + " names snapshot '" + SafePaths.printable(m.id())
          + "'");
    }
    ManifestCheck.validate(m);
    return m;
  }

  /** Ids of every complete snapshot (one with a manifest), oldest first. */
  public List<String> list() {
    List<String> ids = new ArrayList<>();
    for (String id : allIds()) {
      if (hasManifest(id)) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** Ids of everything under {@code snapshots/}, complete or not, oldest first. */
  public List<String> allIds() {
    try {
      return storage.list(SnapshotLayout.SNAPSHOTS + "/").stream()
          .filter(SnapshotLayout::isSnapshotId).sorted().toList();
    } catch (IOException e) {
      throw new SnapshotException("cannot list " + layout.snapshotsDir() + ": " + e.getMessage(), e);
    }
  }

  public boolean hasManifest(String id) {
    try {
      return storage.exists(SnapshotLayout.manifestKey(id));
    } catch (IOException e) {
      throw new SnapshotException("cannot read " + layout.manifest(id) + ": " + e.getMessage(), e);
    }
  }

  /**
   * The staging marker of an unfinished snapshot, if it has one that parses (an oversized or malformed
   * one counts as none). A marker that cannot be read (the store failed) is an error, not "none": gc
   * would take a running build's data for a dead build's.
   */
  public Optional<StagingMarker> stagingMarker(String id) {
    String key = SnapshotLayout.stagingKey(id);
    Optional<byte[]> bytes;
    try {
      bytes = storage.read(key, SnapshotLayout.MAX_RECORD_BYTES);
    } catch (IOException e) {
      if (oversized(key)) {
        return Optional.empty();
      }
      throw new SnapshotException("cannot read the staging marker of " + id + ": " + e.getMessage(), e);
    }
    try {
      return bytes.isEmpty() ? Optional.empty() : Optional.of(JSON.readValue(bytes.get(), StagingMarker.class));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private boolean oversized(String key) {
    try {
      return storage.size(key) > SnapshotLayout.MAX_RECORD_BYTES;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Checks every byte: each file the manifest lists exists with the recorded size and SHA-256
   * (shards, docstore, stored vectors and the corpus files listing), and nothing unlisted lies in the
   * snapshot.
   *
   * @return the problems found; empty when the snapshot verifies
   */
  public List<String> verify(Manifest manifest) {
    return new SnapshotVerifier(storage).check(manifest, SnapshotVerifier.Scope.ALL, true).problems();
  }

  /**
   * Checks that each listed file in directory {@code dir} of snapshot {@code id} is there with its size,
   * without hashing it: for files whose bytes are hashed later by whoever reads them (stored vectors
   * offered for reuse). Problems are added as {@code dir/file: what is wrong}.
   */
  public void checkFileSizes(String id, String dir, List<Manifest.FileEntry> files, List<String> problems) {
    new SnapshotVerifier(storage).files(id, dir, files, false, problems, new long[2]);
  }

  /** Loads and verifies every byte of a snapshot, throwing a {@link SnapshotException} that lists what is wrong. */
  public Manifest open(String id) {
    Manifest m = manifest(id);
    List<String> problems = verify(m);
    if (!problems.isEmpty()) {
      throw failed(id, problems);
    }
    return m;
  }

  /**
   * Verifies every byte of {@code id} and, when it matches, records that in {@code VERIFIED} (bound to
   * the manifest's own SHA-256 and to each file's identity, or version token on an object store,
   * where the storage has them) so that searchers, and the next build's publish, need not hash it
   * again.
   *
   * @param by who verified: {@code publish}, {@code download}, {@code verify}
   * @return the problems; empty when the snapshot verified (and the record was written)
   */
  public List<String> verifyAndRecord(String id, String by) {
    return verifyAndRecord(id, by, true);
  }

  /**
   * As {@link #verifyAndRecord(String, String)}; with {@code hash} false the file set and sizes are
   * checked, and of the bytes only those of referenced files that no record vouches for
   * ({@link #verifyAndReport}): for a snapshot whose checksums were computed by the writers that wrote
   * the files ({@code by = build}), the build's own commit, which must not read back (or download)
   * what it just wrote.
   */
  public List<String> verifyAndRecord(String id, String by, boolean hash) {
    return verifyAndReport(id, by, hash).problems();
  }

  /**
   * As {@link #verifyAndRecord(String, String, boolean)}, saying what was checked and hashed. With
   * {@code hash} false the files a format-2 manifest references from earlier snapshots are still
   * hashed unless a {@code VERIFIED} record vouches for them as they are now
   * ({@link ReferencedFilesPolicy}): their SHA-256 was copied from the base, not computed here.
   */
  public VerifyReport verifyAndReport(String id, String by, boolean hash) {
    return RecordingVerifier.run(this, id, by, hash);
  }

  /** The {@code VERIFIED} record of {@code id}, when there is a readable one. */
  public Optional<VerifiedRecord> verifiedRecord(String id) {
    return verifiedRecordBytes(id).flatMap(SnapshotStore::parseRecord);
  }

  /** The {@code HELD} record of a snapshot that failed a gate, if it has one. */
  public Optional<HeldRecord> held(String id) {
    try {
      Optional<byte[]> bytes = storage.read(SnapshotLayout.heldKey(id), SnapshotLayout.MAX_RECORD_BYTES);
      return bytes.isEmpty() ? Optional.empty() : Optional.of(JSON.readValue(bytes.get(), HeldRecord.class));
    } catch (IOException e) {
      // Unreadable is not "not held": refuse rather than publish a gate failure by accident.
      return Optional.of(new HeldRecord("unknown", "unreadable HELD record: " + e.getMessage(), null));
    }
  }

  /**
   * What {@link #openForServing} did: of the {@code files} a searcher reads, {@code filesHashed} were
   * hashed (the others were vouched for by the {@code VERIFIED} record); {@code rebound}: the record
   * was rewritten with the identities of the files hashed.
   */
  public record Opened(Manifest manifest, long files, long filesHashed, boolean rebound) {
    /** Whether any file was hashed. */
    public boolean hashed() {
      return filesHashed > 0;
    }

    /** Whether every file a searcher reads was hashed: nothing was taken on the record's word. */
    public boolean everyFileHashed() {
      return filesHashed == files;
    }
  }

  /** {@link #openForServing(String, Verification, ShardFilter)}: every shard, {@link Verification#RECORD}. */
  public Opened openForServing(String id) {
    return openForServing(id, Verification.RECORD);
  }

  /** {@link #openForServing(String, Verification, ShardFilter)} of every shard. */
  public Opened openForServing(String id, Verification verification) {
    return openForServing(id, verification, ShardFilter.EVERY);
  }

  /**
   * Opens a snapshot for a searcher: manifest (capped, structure checked) and the files a searcher
   * reads (of the shards {@code shards} selects: their files and docstore parts; never the stored
   * vectors, nor another group's shards, which a group's local copy does not hold): their set and
   * sizes always; with {@link Verification#RECORD} the SHA-256 of each file that a {@code VERIFIED}
   * record for exactly this manifest does not vouch for (every file without such a record), with
   * {@link Verification#FULL} of every file. When files were hashed and matched, the record (if there
   * is one for this manifest) is rewritten with their identities, so that a snapshot copied or
   * touched since, or with a version 1 record, is hashed once rather than at every open; a root this
   * process may not write keeps its record as it is.
   *
   * @throws SnapshotException naming every file that is missing, of the wrong size or whose bytes
   *     differ from the manifest, or when {@code shards} names shards the snapshot does not have
   */
  public Opened openForServing(String id, Verification verification, ShardFilter shards) {
    byte[] bytes = manifestBytes(id);
    Manifest m = parseManifest(id, bytes);
    shards.select(m);
    String sha = Checksums.sha256(bytes);
    Optional<byte[]> recordBytes = verifiedRecordBytes(id);
    Optional<VerifiedRecord> record = recordBytes.flatMap(SnapshotStore::parseRecord)
        .filter(r -> sha.equals(r.manifestSha256()));
    SnapshotVerifier.HashPolicy policy = SnapshotVerifier.HashPolicy.ALL;
    if (record.isPresent() && verification == Verification.RECORD) {
      VerifiedRecord r = record.get();
      long recordTime = modifiedNanos(SnapshotLayout.verifiedKey(id));
      policy = (name, now) -> !r.vouchesFor(name, now, recordTime);
    }
    SnapshotVerifier.Result r = new SnapshotVerifier(storage).check(m, SnapshotVerifier.Scope.SERVING, policy, shards);
    if (!r.problems().isEmpty()) {
      throw failed(id, r.problems());
    }
    boolean rebound = r.hashed() > 0 && record.isPresent() && !r.identities().isEmpty()
        && rebind(id, recordBytes.get(), record.get(), r.identities());
    return new Opened(m, r.files(), r.hashed(), rebound);
  }

  /**
   * Rewrites the record {@code was} (read as {@code wasBytes}) with {@code seen} over its identities,
   * unless it changed meanwhile (a {@code kiln snapshots verify} that failed removes it) or the root
   * cannot be written here.
   */
  private boolean rebind(String id, byte[] wasBytes, VerifiedRecord was, Map<String, FileIdentity> seen) {
    Map<String, FileIdentity> identities = new TreeMap<>();
    if (was.identities() != null) {
      identities.putAll(was.identities());
    }
    identities.putAll(seen);
    VerifiedRecord now = new VerifiedRecord(VerifiedRecord.FORMAT_VERSION, was.manifestSha256(), was.verified(),
        was.by(), was.files(), was.bytes(), identities, Instant.now().toString(), was.versions());
    String key = SnapshotLayout.verifiedKey(id);
    try {
      if (!Arrays.equals(wasBytes, verifiedRecordBytes(id).orElse(null))) {
        return false;
      }
      storage.write(key, JSON.writeValueAsBytes(now));
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.info("snapshot {}: VERIFIED not rewritten with the identities of the files just hashed ({}); they are"
          + " hashed again at the next open", id, e.toString());
      return false;
    }
  }

  /** The modification time of {@code key} in nanoseconds, or {@link Long#MIN_VALUE} when the storage keeps none. */
  private long modifiedNanos(String key) {
    try {
      return storage.identity(key).map(FileIdentity::modifiedNanos).orElse(Long.MIN_VALUE);
    } catch (IOException e) {
      return Long.MIN_VALUE;
    }
  }

  private Optional<byte[]> verifiedRecordBytes(String id) {
    try {
      return storage.read(SnapshotLayout.verifiedKey(id), SnapshotLayout.MAX_RECORD_BYTES);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Optional<VerifiedRecord> parseRecord(byte[] bytes) {
    try {
      return Optional.ofNullable(JSON.readValue(bytes, VerifiedRecord.class));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Removes the {@code VERIFIED} record of {@code id}, so that every reader hashes the snapshot again
   * (and refuses it while it does not match): what a failed verification does. Best effort: false
   * when it could not be removed.
   */
  public boolean dropVerifiedRecord(String id) {
    try {
      storage.delete(SnapshotLayout.verifiedKey(id));
      return true;
    } catch (IOException e) {
      LOG.warn("cannot remove the VERIFIED record of {}: {}", id, e.toString());
      return false;
    }
  }

  private SnapshotException failed(String id, List<String> problems) {
    return new SnapshotException("snapshot " + id + " under " + layout.root()
        + " failed verification and will not be used: " + String.join("; ", problems));
  }
}
