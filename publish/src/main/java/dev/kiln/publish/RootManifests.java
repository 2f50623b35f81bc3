package dev.kiln.publish;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SafePaths;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The manifests of every complete snapshot of a root, read so that what they reference can be trusted
 * as the whole of what any snapshot may still read (docs/FORMATS.md, "Retention"). The listing is taken,
 * every listed manifest read, and the listing taken again, until two listings agree and no manifest
 * vanished in between: a manifest that existed throughout is then among those read, and one written
 * later belongs to a build whose base was among them (its base is kept while it runs), so it references
 * nothing under a directory without a manifest that those did not.
 */
public final class RootManifests {
  /** Listings to try before giving up on a root that keeps changing. */
  static final int ATTEMPTS = 5;

  /**
   * One file a manifest lists: its directory in the snapshot (a shard, {@code parents}, {@code embeddings};
   * empty for the top-level corpus files listing) and its entry.
   */
  public record Listed(String directory, Manifest.FileEntry entry) {
    /**
     * Where the bytes are stored, independent of the storage: the owner's key
     * ({@link SnapshotLayout#fileKey}). Two snapshots that list one file share this key.
     */
    public String ownerKey(String id) {
      return directory.isEmpty() ? SafePaths.key(SnapshotLayout.snapshotKey(id), "file", entry.name())
          : SnapshotLayout.fileKey(id, directory, entry);
    }

    /**
     * Where {@code storage} holds what a reader of snapshot {@code id} reads ({@link SnapshotStorage#fileKey}):
     * the owner's key on an object store, the snapshot's own hard link on a local root.
     */
    public String storedKey(SnapshotStorage storage, String id) {
      return directory.isEmpty() ? ownerKey(id) : storage.fileKey(id, directory, entry);
    }
  }

  private final Map<String, Manifest> manifests;
  private final Map<String, String> unreadable;

  private RootManifests(Map<String, Manifest> manifests, Map<String, String> unreadable) {
    this.manifests = Collections.unmodifiableMap(manifests);
    this.unreadable = Collections.unmodifiableMap(unreadable);
  }

  /**
   * Reads every complete snapshot's manifest until two listings around the reads agree.
   *
   * @throws SnapshotException when the root kept changing for {@link #ATTEMPTS} listings
   */
  public static RootManifests read(SnapshotStore store) {
    List<String> before = store.list();
    for (int attempt = 1; ; attempt++) {
      Map<String, Manifest> read = new LinkedHashMap<>();
      Map<String, String> bad = new TreeMap<>();
      boolean vanished = false;
      for (String id : before) {
        Optional<byte[]> bytes;
        try {
          bytes = store.storage().read(SnapshotLayout.manifestKey(id), SnapshotLayout.MAX_MANIFEST_BYTES);
        } catch (IOException e) {
          bad.put(id, e.getMessage());
          continue;
        }
        if (bytes.isEmpty()) {
          vanished = true;
          break;
        }
        try {
          read.put(id, SnapshotStore.parseManifest(id, bytes.get()));
        } catch (SnapshotException e) {
          bad.put(id, e.getMessage());
        }
      }
      List<String> after = store.list();
      if (!vanished && after.equals(before)) {
        return new RootManifests(read, bad);
      }
      if (attempt == ATTEMPTS) {
        throw new SnapshotException("the complete snapshots under " + store.layout().root() + " kept changing while"
            + " their manifests were read (" + ATTEMPTS + " listings; last " + before + ", then " + after + ")");
      }
      before = after;
    }
  }

  /** Each complete snapshot's manifest, by id, oldest first (the unreadable ones left out). */
  public Map<String, Manifest> manifests() {
    return manifests;
  }

  /**
   * Complete snapshots whose manifest could not be read or is refused, with the reason: what they
   * reference is unknown, so no sweep may trust {@link #storedKeys} while there are any.
   */
  public Map<String, String> unreadable() {
    return unreadable;
  }

  /** Every file {@code m} lists: shards, docstore, stored vectors, the corpus files listing. */
  public static List<Listed> files(Manifest m) {
    List<Listed> out = new ArrayList<>();
    for (Manifest.ShardEntry s : m.shards()) {
      s.files().forEach(f -> out.add(new Listed(s.directory(), f)));
    }
    if (m.docstore() != null && m.docstore().files() != null) {
      m.docstore().files().forEach(f -> out.add(new Listed(m.docstore().directory(), f)));
    }
    if (m.embeddings() != null && m.embeddings().files() != null) {
      m.embeddings().files().forEach(f -> out.add(new Listed(m.embeddings().directory(), f)));
    }
    Manifest.CorpusFilesEntry c = m.corpusFiles();
    if (c != null) {
      out.add(new Listed("", new Manifest.FileEntry(c.file(), c.size(), c.sha256())));
    }
    return out;
  }

  /**
   * The keys {@code storage} holds files of these manifests at ({@link Listed#storedKey}): what a sweep
   * of a directory without a manifest must keep. On a local root each snapshot holds links of what it
   * references, so no such key lies under another snapshot's directory.
   */
  public Set<String> storedKeys(SnapshotStorage storage) {
    Set<String> keys = new HashSet<>();
    manifests.forEach((id, m) -> files(m).forEach(f -> keys.add(f.storedKey(storage, id))));
    return keys;
  }
}
