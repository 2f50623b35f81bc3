package dev.kiln.snapshot;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Read side of a snapshots root. Readers follow only {@code CURRENT → manifest → files} and check
 * every file's size and SHA-256 before trusting a snapshot.
 */
public final class SnapshotStore {
  static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final SnapshotLayout layout;

  public SnapshotStore(Path root) {
    this.layout = new SnapshotLayout(root);
  }

  public SnapshotLayout layout() {
    return layout;
  }

  public static ObjectMapper json() {
    return JSON;
  }

  /** The published snapshot id; throws when nothing has been published yet. */
  public String currentId() {
    Path current = layout.current();
    try {
      String id = Files.readString(current, StandardCharsets.UTF_8).trim();
      if (!SnapshotLayout.isSnapshotId(id)) {
        throw new SnapshotException(current + " does not hold a snapshot id (found '" + id + "')");
      }
      return id;
    } catch (NoSuchFileException e) {
      throw new SnapshotException(
          "no published snapshot under " + layout.root() + " (" + current.getFileName()
              + " is missing): run 'scripts/kiln build' first or pass --snapshots");
    } catch (IOException e) {
      throw new SnapshotException("cannot read " + current + ": " + e.getMessage(), e);
    }
  }

  public Manifest manifest(String id) {
    Path file = layout.manifest(id);
    try {
      Manifest m = JSON.readValue(file.toFile(), Manifest.class);
      if (m.formatVersion() > Manifest.FORMAT_VERSION) {
        throw new SnapshotException("snapshot " + id + " has format version " + m.formatVersion()
            + "; this Kiln reads up to " + Manifest.FORMAT_VERSION + ": upgrade Kiln");
      }
      if (!id.equals(m.id())) {
        throw new SnapshotException("manifest " + file + " names snapshot '" + m.id() + "', not " + id);
      }
      return m;
    } catch (IOException e) {
      throw new SnapshotException("snapshot " + id + " has no readable manifest (" + file + "): "
          + e.getMessage(), e);
    }
  }

  /** Ids of every snapshot directory that has a manifest, oldest first. */
  public List<String> list() {
    List<String> ids = new ArrayList<>();
    if (!Files.isDirectory(layout.snapshotsDir())) {
      return ids;
    }
    try (Stream<Path> dirs = Files.list(layout.snapshotsDir())) {
      dirs.map(p -> p.getFileName().toString())
          .filter(SnapshotLayout::isSnapshotId)
          .filter(id -> Files.isRegularFile(layout.manifest(id)))
          .sorted()
          .forEach(ids::add);
    } catch (IOException e) {
      throw new SnapshotException("cannot list " + layout.snapshotsDir() + ": " + e.getMessage(), e);
    }
    return ids;
  }

  /**
   * Checks that every file the manifest lists exists with the recorded size and SHA-256, and that a
   * shard directory holds no file the manifest does not list.
   *
   * @return the problems found; empty when the snapshot verifies
   */
  public List<String> verify(Manifest manifest) {
    List<String> problems = new ArrayList<>();
    for (Manifest.ShardEntry shard : manifest.shards()) {
      verifyFiles(layout.snapshotDir(manifest.id()).resolve(shard.directory()), shard.directory(),
          shard.files(), problems);
    }
    Manifest.DocstoreEntry docstore = manifest.docstore();
    if (docstore != null) {
      verifyFiles(layout.snapshotDir(manifest.id()).resolve(docstore.directory()), docstore.directory(),
          docstore.files(), problems);
    }
    return problems;
  }

  private static void verifyFiles(Path dir, String dirName, List<Manifest.FileEntry> files,
      List<String> problems) {
    for (Manifest.FileEntry f : files) {
      Path file = dir.resolve(f.name());
      String where = dirName + "/" + f.name();
      try {
        long size = Files.size(file);
        if (size != f.size()) {
          problems.add(where + ": size " + size + ", manifest says " + f.size());
          continue;
        }
        String sha = Checksums.sha256(file);
        if (!sha.equals(f.sha256())) {
          problems.add(where + ": sha256 " + sha + ", manifest says " + f.sha256());
        }
      } catch (NoSuchFileException e) {
        problems.add(where + ": missing");
      } catch (IOException e) {
        problems.add(where + ": unreadable (" + e.getMessage() + ")");
      }
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
