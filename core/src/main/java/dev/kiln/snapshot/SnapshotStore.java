package dev.kiln.snapshot;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Read side of a snapshots root. Readers follow only {@code CURRENT → manifest → files} and check
 * every file's size and SHA-256 before trusting a snapshot. A snapshot exists for readers once its
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
      Optional<byte[]> bytes = storage.read(SnapshotLayout.CURRENT);
      if (bytes.isEmpty()) {
        return Optional.empty();
      }
      String id = new String(bytes.get(), StandardCharsets.UTF_8).trim();
      if (!SnapshotLayout.isSnapshotId(id)) {
        throw new SnapshotException(layout.current() + " does not hold a snapshot id (found '" + id + "')");
      }
      return Optional.of(id);
    } catch (IOException e) {
      throw new SnapshotException("cannot read " + layout.current() + ": " + e.getMessage(), e);
    }
  }

  public Manifest manifest(String id) {
    String key = SnapshotLayout.manifestKey(id);
    try {
      byte[] bytes = storage.read(key).orElseThrow(() -> new NoSuchFileException(key));
      Manifest m = JSON.readValue(bytes, Manifest.class);
      if (m.formatVersion() > Manifest.FORMAT_VERSION) {
        throw new SnapshotException("snapshot " + id + " has format version " + m.formatVersion()
            + "; this Kiln reads up to " + Manifest.FORMAT_VERSION + ": upgrade Kiln");
      }
      if (!id.equals(m.id())) {
        throw new SnapshotException("manifest " + key + " names snapshot '" + m.id() + "', not " + id);
      }
      return m;
    } catch (IOException e) {
      throw new SnapshotException("snapshot " + id + " has no readable manifest (" + layout.manifest(id) + "): "
          + e.getMessage(), e);
    }
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
      Optional<byte[]> bytes = storage.read(SnapshotLayout.stagingKey(id));
      return bytes.isEmpty() ? Optional.empty() : Optional.of(JSON.readValue(bytes.get(), StagingMarker.class));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Checks that every file the manifest lists exists with the recorded size and SHA-256.
   *
   * @return the problems found; empty when the snapshot verifies
   */
  public List<String> verify(Manifest manifest) {
    List<String> problems = new ArrayList<>();
    for (Manifest.ShardEntry shard : manifest.shards()) {
      verifyFiles(manifest.id(), shard.directory(), shard.files(), problems);
    }
    if (manifest.embeddings() != null) {
      Manifest.EmbeddingsInfo e = manifest.embeddings();
      verifyFiles(manifest.id(), e.directory(), e.files(), problems);
    }
    Manifest.DocstoreEntry docstore = manifest.docstore();
    if (docstore != null) {
      verifyFiles(manifest.id(), docstore.directory(), docstore.files(), problems);
    }
    return problems;
  }

  /**
   * Size and SHA-256 of each listed file in directory {@code dir} of snapshot {@code id}; problems
   * are added as {@code dir/file: what is wrong}.
   */
  public void verifyFiles(String id, String dir, List<Manifest.FileEntry> files, List<String> problems) {
    String prefix = SnapshotLayout.snapshotKey(id);
    for (Manifest.FileEntry f : files) {
      String name = dir + "/" + f.name();
      String key = prefix + name;
      try {
        long size = storage.size(key);
        if (size != f.size()) {
          problems.add(name + ": size " + size + ", manifest says " + f.size());
          continue;
        }
        String sha = sha256(key);
        if (!sha.equals(f.sha256())) {
          problems.add(name + ": sha256 " + sha + ", manifest says " + f.sha256());
        }
      } catch (NoSuchFileException e) {
        problems.add(name + ": missing");
      } catch (IOException | IllegalArgumentException e) {
        problems.add(name + ": unreadable (" + e.getMessage() + ")");
      }
    }
  }

  private String sha256(String key) throws IOException {
    try (InputStream in = storage.open(key)) {
      return Checksums.sha256(in);
    }
  }

  /** Loads and verifies a snapshot, throwing a {@link SnapshotException} that lists what is wrong. */
  public Manifest open(String id) {
    Manifest m = manifest(id);
    List<String> problems = verify(m);
    if (!problems.isEmpty()) {
      throw new SnapshotException("snapshot " + id + " under " + layout.root()
          + " failed verification and will not be used: " + String.join("; ", problems));
    }
    return m;
  }
}
