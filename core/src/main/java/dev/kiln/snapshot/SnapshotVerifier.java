package dev.kiln.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a snapshot's files against its (structurally valid, {@link ManifestCheck}) manifest through
 * a {@link SnapshotStorage}: sizes, optionally SHA-256, and files the manifest does not list. An
 * unlisted file in a shard directory is a problem, not a curiosity: Lucene opens the newest
 * {@code segments_N} it finds, so a planted one would be served unverified.
 *
 * <p>{@link Scope#SERVING} covers what a searcher reads (shards, but not their fingerprint files, and
 * the parents docstore);
 * {@link Scope#ALL} adds the stored vectors, the corpus files listing and the snapshot directory
 * itself.
 */
public final class SnapshotVerifier {
  /** Lucene's lock file: empty, never listed, may or may not be there. */
  static final String WRITE_LOCK = "write.lock";

  /** What to check. */
  public enum Scope { SERVING, ALL }

  /**
   * Which files to hash: every one, none (sizes and the file set only), or those a
   * {@link VerifiedRecord} does not vouch for. Asked once per file with the identity the file has
   * now ({@code null} where the storage keeps none), read before the file is hashed.
   */
  @FunctionalInterface
  public interface HashPolicy {
    HashPolicy ALL = (name, identity) -> true;
    HashPolicy NONE = (name, identity) -> false;

    boolean hash(String name, FileIdentity identity);

    /**
     * As {@link #hash(String, FileIdentity)}, also given the object's version token now
     * ({@link ObjectStat#version}; null where the storage keeps none, and wherever it keeps
     * identities). By default the token is not looked at.
     */
    default boolean hash(String name, FileIdentity identity, String version) {
      return hash(name, identity);
    }
  }

  /**
   * What a check found: problems, how many files and bytes it covered, how many of those it hashed,
   * and the identity of each file it found (by name relative to the snapshot; empty where the storage
   * keeps none), read before the file was hashed; {@code hashedBytes}: the bytes of the files hashed;
   * {@code versions}: each file's version token where the storage keeps them ({@link ObjectStat}),
   * read before the file was hashed.
   */
  public record Result(List<String> problems, long files, long bytes, long hashed,
      Map<String, FileIdentity> identities, long hashedBytes, Map<String, String> versions) {}

  private final SnapshotStorage storage;

  public SnapshotVerifier(SnapshotStorage storage) {
    this.storage = storage;
  }

  /**
   * @param hash also compare every file's SHA-256 (false: sizes and the file set only)
   */
  public Result check(Manifest m, Scope scope, boolean hash) {
    return check(m, scope, hash ? HashPolicy.ALL : HashPolicy.NONE);
  }

  /** Sizes and the file set always; SHA-256 of the files {@code policy} picks. */
  public Result check(Manifest m, Scope scope, HashPolicy policy) {
    return check(m, scope, policy, ShardFilter.EVERY);
  }

  /**
   * As {@link #check(Manifest, Scope, HashPolicy)}, over the files of the shards {@code shards}
   * selects only (theirs and their parts of the docstore): a shard group's server checks what it
   * serves and never looks at another group's shards, which its local copy of a remote root does not
   * even hold. The snapshot-wide files of {@link Scope#ALL} are checked whatever the filter.
   */
  public Result check(Manifest m, Scope scope, HashPolicy policy, ShardFilter shards) {
    Tally t = new Tally(policy);
    String prefix = SnapshotLayout.snapshotKey(m.id());
    Set<String> top = new HashSet<>(Set.of(SnapshotLayout.MANIFEST, SnapshotLayout.VERIFIED, SnapshotLayout.HELD,
        SnapshotLayout.STAGING));
    top.addAll(SnapshotLayout.STAGING_LOCKS);
    for (Manifest.ShardEntry s : m.shards()) {
      top.add(s.directory());
      if (!shards.contains(s.shard())) {
        continue;
      }
      // A searcher never reads a shard's fingerprint file: a serving check leaves it to incremental
      // builds (which check its structure as they open it) and to a check of everything.
      files(m.id(), s.directory(), scope == Scope.ALL ? s.files() : s.servingFiles(), t);
      unlisted(prefix, s.directory(), s.files(), t.problems);
    }
    Manifest.DocstoreEntry d = m.docstore();
    if (d != null) {
      files(m.id(), d.directory(), shards.docstoreFiles(m, d), t);
      for (Manifest.ShardEntry s : m.shards()) {
        if (!shards.contains(s.shard())) {
          continue;
        }
        String part = s.directory() + "/";
        List<Manifest.FileEntry> inPart = d.files().stream().filter(f -> f.name().startsWith(part))
            .map(f -> f.renamed(f.name().substring(part.length()))).toList();
        unlisted(prefix, d.directory() + "/" + s.directory(), inPart, t.problems);
      }
      top.add(d.directory());
    }
    if (scope == Scope.ALL) {
      Manifest.EmbeddingsInfo e = m.embeddings();
      if (e != null) {
        files(m.id(), e.directory(), e.files(), t);
        unlisted(prefix, e.directory(), e.files(), t.problems);
        top.add(e.directory());
      }
      Manifest.CorpusFilesEntry c = m.corpusFiles();
      if (c != null) {
        fileUnder(prefix, SnapshotLayout.CORPUS_FILES, c.size(), c.sha256(), t);
        top.add(SnapshotLayout.CORPUS_FILES);
      }
      try {
        for (String name : storage.list(prefix)) {
          if (!top.contains(name)) {
            t.problems.add(name + ": not listed in the manifest");
          }
        }
      } catch (IOException e2) {
        t.problems.add("cannot list " + prefix + ": " + e2.getMessage());
      }
    }
    return new Result(t.problems, t.files, t.bytes, t.hashed, t.identities, t.hashedBytes, t.versions);
  }

  /** What a check has found so far. */
  static final class Tally {
    final HashPolicy policy;
    final List<String> problems = new ArrayList<>();
    final Map<String, FileIdentity> identities = new TreeMap<>();
    final Map<String, String> versions = new TreeMap<>();
    long files;
    long bytes;
    long hashed;
    long hashedBytes;

    Tally(HashPolicy policy) {
      this.policy = policy;
    }
  }

  /** Size (and SHA-256) of each listed file of {@code dir}; problems read {@code dir/file: what is wrong}. */
  void files(String id, String dir, List<Manifest.FileEntry> files, boolean hash, List<String> problems,
      long[] totals) {
    Tally t = new Tally(hash ? HashPolicy.ALL : HashPolicy.NONE);
    files(id, dir, files, t);
    problems.addAll(t.problems);
    totals[0] += t.files;
    totals[1] += t.bytes;
  }

  private void files(String id, String dir, List<Manifest.FileEntry> files, Tally t) {
    for (Manifest.FileEntry f : files) {
      String name = dir + "/" + f.name();
      String key;
      try {
        key = storage.fileKey(id, dir, f);
      } catch (RuntimeException e) {
        t.problems.add(name + ": " + e.getMessage());
        continue;
      }
      file(key, name, f.size(), f.sha256(), t);
    }
  }

  /** Size (and SHA-256) of the file {@code name} (relative to the snapshot's {@code prefix}). */
  private void fileUnder(String prefix, String name, long expectedSize, String expectedSha, Tally t) {
    String key;
    try {
      key = SafePaths.key(prefix, "file", name);
    } catch (RuntimeException e) {
      t.problems.add(name + ": " + e.getMessage());
      return;
    }
    file(key, name, expectedSize, expectedSha, t);
  }

  /**
   * Size (and SHA-256) of the file at {@code key}, named {@code name} relative to the snapshot that
   * lists it (a referenced file's key is under another snapshot; problems and identities still name
   * it as this snapshot lists it).
   */
  private void file(String key, String name, long expectedSize, String expectedSha, Tally t) {
    try {
      // The identity (or version) first: a change while the file is hashed then shows as a changed
      // identity later. An object store's size and version come from one request (a HEAD).
      FileIdentity identity = storage.identity(key).orElse(null);
      ObjectStat stat = identity != null ? new ObjectStat(identity.size(), null) : storage.stat(key);
      long size = stat.size();
      t.files++;
      t.bytes += size;
      if (identity != null) {
        t.identities.put(name, identity);
      }
      if (stat.version() != null) {
        t.versions.put(name, stat.version());
      }
      if (size != expectedSize) {
        t.problems.add(name + ": size " + size + ", manifest says " + expectedSize);
        return;
      }
      if (t.policy.hash(name, identity, stat.version())) {
        t.hashed++;
        t.hashedBytes += size;
        String sha;
        try (InputStream in = storage.open(key)) {
          sha = Checksums.sha256(in);
        }
        if (!sha.equals(expectedSha)) {
          t.problems.add(name + ": sha256 " + sha + ", manifest says " + expectedSha);
        }
      }
    } catch (NoSuchFileException e) {
      t.problems.add(name + ": missing");
    } catch (IOException | RuntimeException e) {
      t.problems.add(name + ": unreadable (" + e.getMessage() + ")");
    }
  }

  /** Entries of {@code dir} that {@code files} does not name (Lucene's write.lock aside). */
  private void unlisted(String prefix, String dir, List<Manifest.FileEntry> files, List<String> problems) {
    // On an object store a referenced file is not in this snapshot's directory: an object there of
    // that name is not what readers read, so it is reported like any other unlisted one.
    Set<String> listed = new HashSet<>();
    String self = prefix.substring(SnapshotLayout.SNAPSHOTS.length() + 1, prefix.length() - 1);
    files.stream().filter(f -> storage.linksSharedFiles() || !f.referenced(self)).forEach(f -> listed.add(f.name()));
    try {
      for (String name : storage.list(prefix + dir + "/")) {
        if (!listed.contains(name) && !name.equals(WRITE_LOCK)) {
          problems.add(dir + "/" + SafePaths.printable(name) + ": not listed in the manifest");
        }
      }
    } catch (IOException e) {
      problems.add("cannot list " + dir + ": " + e.getMessage());
    }
  }
}
