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
import java.util.Optional;

/**
 * Read side of a snapshots root. Readers follow only {@code CURRENT → manifest → files}; {@code
 * CURRENT} and manifests are read with size caps and manifests checked for structure
 * ({@link ManifestCheck}, {@link SafePaths}) before anything they name is touched. {@link #open}
 * checks every file's size and SHA-256; {@link #openForServing} skips the hashing when a
 * {@code VERIFIED} record covers this very manifest. A snapshot exists for readers once its
 * manifest does; anything else under {@code snapshots/} is unfinished data that no reader looks at.
 */
public final class SnapshotStore {
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

  /** The staging marker of an unfinished snapshot, if it has one (and it is readable). */
  public Optional<StagingMarker> stagingMarker(String id) {
    try {
      Optional<byte[]> bytes = storage.read(SnapshotLayout.stagingKey(id), SnapshotLayout.MAX_RECORD_BYTES);
      return bytes.isEmpty() ? Optional.empty() : Optional.of(JSON.readValue(bytes.get(), StagingMarker.class));
    } catch (IOException e) {
      return Optional.empty();
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
   * the manifest's own SHA-256) so that searchers need not hash it again.
   *
   * @param by who verified: {@code publish}, {@code download}, {@code verify}
   * @return the problems; empty when the snapshot verified (and the record was written)
   */
  public List<String> verifyAndRecord(String id, String by) {
    return verifyAndRecord(id, by, true);
  }

  /**
   * As {@link #verifyAndRecord(String, String)}; with {@code hash} false only the file set and sizes
   * are checked here, for a snapshot whose checksums were computed by the writers that wrote the
   * files ({@code by = build}): the build's own commit, which must not read back (or download) what
   * it just wrote.
   */
  public List<String> verifyAndRecord(String id, String by, boolean hash) {
    byte[] bytes = manifestBytes(id);
    Manifest m = parseManifest(id, bytes);
    SnapshotVerifier.Result r = new SnapshotVerifier(storage).check(m, SnapshotVerifier.Scope.ALL, hash);
    try {
      if (r.problems().isEmpty()) {
        // Re-read: a manifest replaced while we hashed must not inherit this record.
        if (!Arrays.equals(bytes, manifestBytes(id))) {
          return List.of("manifest.json changed while it was verified");
        }
        storage.write(SnapshotLayout.verifiedKey(id), JSON.writeValueAsBytes(new VerifiedRecord(
            VerifiedRecord.FORMAT_VERSION, Checksums.sha256(bytes), Instant.now().toString(), by, r.files(), r.bytes())));
      } else {
        storage.delete(SnapshotLayout.verifiedKey(id));
      }
    } catch (IOException e) {
      throw new SnapshotException("cannot record the verification of " + id + ": " + e.getMessage(), e);
    }
    return r.problems();
  }

  /** The {@code VERIFIED} record of {@code id}, when there is a readable one. */
  public Optional<VerifiedRecord> verifiedRecord(String id) {
    try {
      Optional<byte[]> bytes = storage.read(SnapshotLayout.verifiedKey(id), SnapshotLayout.MAX_RECORD_BYTES);
      return bytes.isEmpty() ? Optional.empty() : Optional.of(JSON.readValue(bytes.get(), VerifiedRecord.class));
    } catch (IOException e) {
      return Optional.empty();
    }
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

  /** What {@link #openForServing} did. */
  public record Opened(Manifest manifest, boolean hashed) {}

  /**
   * Opens a snapshot for a searcher: manifest (capped, structure checked) and the files a searcher
   * reads (shards, docstore; never the stored vectors). With a {@code VERIFIED} record for exactly
   * this manifest, sizes and the file set are checked; without one, every such file is hashed too.
   */
  public Opened openForServing(String id) {
    byte[] bytes = manifestBytes(id);
    Manifest m = parseManifest(id, bytes);
    String sha = Checksums.sha256(bytes);
    boolean recorded = verifiedRecord(id).map(r -> sha.equals(r.manifestSha256())).orElse(false);
    SnapshotVerifier.Result r = new SnapshotVerifier(storage).check(m, SnapshotVerifier.Scope.SERVING, !recorded);
    if (!r.problems().isEmpty()) {
      throw failed(id, r.problems());
    }
    return new Opened(m, !recorded);
  }

  private SnapshotException failed(String id, List<String> problems) {
    return new SnapshotException("snapshot " + id + " under " + layout.root()
        + " failed verification and will not be used: " + String.join("; ", problems));
  }
}
