package dev.kiln.operators.fs;

import dev.kiln.index.store.CachedRemoteFile;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One base shard as a continuing writer gets it ({@link BaseFiles#shard}): a local directory whose
 * files are hard-linked into the new shard, or the files of a remote base read on demand.
 */
public sealed interface BaseShard extends Closeable {

  /** A base shard in a local directory (a local root: in place). */
  record Local(Path directory) implements BaseShard {
    @Override
    public void close() {}
  }

  /** A base shard left where it lives, read block by block ({@link CachedRemoteFile}). */
  record Remote(Map<String, CachedRemoteFile> files, Path cache) implements BaseShard {
    /**
     * Checks against the SHA-256 the base manifest records, from the fetched blocks, every base file the
     * writer read whole, and every base file the finished shard no longer shares ({@code shared}): a
     * segment merged away was read to be copied into new files, so its few blocks not read yet are
     * fetched and it is checked too. A damaged base object then fails the build instead of being merged
     * into the next snapshot. Files still shared and read in part are left to whoever reads them whole:
     * the new snapshot references them with the base's checksums, and every download of it hashes them.
     */
    public void verifyRead(String baseId, List<Manifest.FileEntry> manifest, Set<String> shared)
        throws IOException {
      for (Manifest.FileEntry e : manifest) {
        CachedRemoteFile f = files.get(e.name());
        if (f == null) {
          continue;
        }
        if (!shared.contains(e.name())) {
          f.fetchRest();
        } else if (!f.whole()) {
          continue;
        }
        String sha = f.sha256();
        if (!sha.equals(e.sha256())) {
          throw new SnapshotException("base snapshot " + baseId + " failed verification and will not be"
              + " continued: " + f.name() + ": sha256 " + sha + ", manifest says " + e.sha256());
        }
      }
    }

    @Override
    public void close() throws IOException {
      IOException failure = null;
      for (CachedRemoteFile f : files.values()) {
        try {
          f.close();
        } catch (IOException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }
}
