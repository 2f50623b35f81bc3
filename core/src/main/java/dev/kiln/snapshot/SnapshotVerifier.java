package dev.kiln.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

  /** What a check found: problems, and how many files and bytes it covered. */
  public record Result(List<String> problems, long files, long bytes) {}

  private final SnapshotStorage storage;

  public SnapshotVerifier(SnapshotStorage storage) {
    this.storage = storage;
  }

  /**
   * @param hash also compare every file's SHA-256 (false: sizes and the file set only)
   */
  public Result check(Manifest m, Scope scope, boolean hash) {
    List<String> problems = new ArrayList<>();
    long[] totals = new long[2];
    String prefix = SnapshotLayout.snapshotKey(m.id());
    Set<String> top = new HashSet<>(Set.of(SnapshotLayout.MANIFEST, SnapshotLayout.VERIFIED, SnapshotLayout.HELD,
        SnapshotLayout.STAGING));
    for (Manifest.ShardEntry s : m.shards()) {
      // A searcher never reads a shard's fingerprint file: a serving check leaves it to incremental
      // builds (which check its structure as they open it) and to a check of everything.
      files(m.id(), s.directory(), scope == Scope.ALL ? s.files() : s.servingFiles(), hash, problems, totals);
      unlisted(prefix, s.directory(), s.files(), problems);
      top.add(s.directory());
    }
    Manifest.DocstoreEntry d = m.docstore();
    if (d != null) {
      files(m.id(), d.directory(), d.files(), hash, problems, totals);
      for (Manifest.ShardEntry s : m.shards()) {
        String part = s.directory() + "/";
        List<Manifest.FileEntry> inPart = d.files().stream().filter(f -> f.name().startsWith(part))
            .map(f -> new Manifest.FileEntry(f.name().substring(part.length()), f.size(), f.sha256())).toList();
        unlisted(prefix, d.directory() + "/" + s.directory(), inPart, problems);
      }
      top.add(d.directory());
    }
    if (scope == Scope.ALL) {
      Manifest.EmbeddingsInfo e = m.embeddings();
      if (e != null) {
        files(m.id(), e.directory(), e.files(), hash, problems, totals);
        unlisted(prefix, e.directory(), e.files(), problems);
        top.add(e.directory());
      }
      Manifest.CorpusFilesEntry c = m.corpusFiles();
      if (c != null) {
        file(prefix, SnapshotLayout.CORPUS_FILES, c.size(), c.sha256(), hash, problems, totals);
        top.add(SnapshotLayout.CORPUS_FILES);
      }
      try {
        for (String name : storage.list(prefix)) {
          if (!top.contains(name)) {
            problems.add(name + ": not listed in the manifest");
          }
        }
      } catch (IOException e2) {
        problems.add("cannot list " + prefix + ": " + e2.getMessage());
      }
    }
    return new Result(problems, totals[0], totals[1]);
  }

  /** Size (and SHA-256) of each listed file of {@code dir}; problems read {@code dir/file: what is wrong}. */
  void files(String id, String dir, List<Manifest.FileEntry> files, boolean hash, List<String> problems,
      long[] totals) {
    String prefix = SnapshotLayout.snapshotKey(id);
    for (Manifest.FileEntry f : files) {
      file(prefix, dir + "/" + f.name(), f.size(), f.sha256(), hash, problems, totals);
    }
  }

  /** Size (and SHA-256) of the file {@code name} (relative to the snapshot's {@code prefix}). */
  private void file(String prefix, String name, long expectedSize, String expectedSha, boolean hash,
      List<String> problems, long[] totals) {
    try {
      String key = SafePaths.key(prefix, "file", name);
      long size = storage.size(key);
      totals[0]++;
      totals[1] += size;
      if (size != expectedSize) {
        problems.add(name + ": size " + size + ", manifest says " + expectedSize);
        return;
      }
      if (hash) {
        String sha;
        try (InputStream in = storage.open(key)) {
          sha = Checksums.sha256(in);
        }
        if (!sha.equals(expectedSha)) {
          problems.add(name + ": sha256 " + sha + ", manifest says " + expectedSha);
        }
      }
    } catch (NoSuchFileException e) {
      problems.add(name + ": missing");
    } catch (IOException | RuntimeException e) {
      problems.add(name + ": unreadable (" + e.getMessage() + ")");
    }
  }

  /** Entries of {@code dir} that {@code files} does not name (Lucene's write.lock aside). */
  private void unlisted(String prefix, String dir, List<Manifest.FileEntry> files, List<String> problems) {
    Set<String> listed = new HashSet<>();
    files.forEach(f -> listed.add(f.name()));
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
