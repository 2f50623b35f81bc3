package dev.kiln.snapshot;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A manifest's structure, checked before any of it is used: a manifest that lists no shard, or a
 * shard directory outside the snapshot, would otherwise "verify" with nothing verified. The shard set
 * a manifest declares is its {@code shards} list: N entries must be shards 0..N-1, each exactly once,
 * each in the directory {@link SnapshotLayout#shardDirName} gives it, each with at least one file;
 * stored vectors live in {@link SnapshotLayout#EMBEDDINGS} and the parents docstore in
 * {@link SnapshotLayout#PARENTS}, one part per listed shard, the corpus files listing in
 * {@link SnapshotLayout#CORPUS_FILES}; every file name passes {@link SafePaths}, appears once, has a
 * size and a SHA-256.
 */
public final class ManifestCheck {
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  private ManifestCheck() {}

  /** Throws a {@link SnapshotException} listing every structural problem of {@code m}. */
  public static void validate(Manifest m) {
    List<String> problems = problems(m);
    if (!problems.isEmpty()) {
      throw new SnapshotException("manifest of snapshot " + m.id() + " is malformed and will not be used: "
          + String.join("; ", problems));
    }
  }

  /** Every structural problem of {@code m}; empty when it is well formed. */
  public static List<String> problems(Manifest m) {
    List<String> problems = new ArrayList<>();
    if (m.model() == null || m.index() == null || m.chunker() == null) {
      problems.add("model, chunker and index sections are required");
    }
    List<Manifest.ShardEntry> shards = m.shards();
    if (shards == null || shards.isEmpty()) {
      problems.add("it lists no shards");
      return problems;
    }
    int n = shards.size();
    Set<Integer> seen = new HashSet<>();
    for (Manifest.ShardEntry s : shards) {
      if (s == null) {
        problems.add("a shard entry is empty");
        continue;
      }
      if (s.shard() < 0 || s.shard() >= n) {
        problems.add("shard " + s.shard() + " is outside 0.." + (n - 1) + " (the manifest lists " + n + " shards)");
        continue;
      }
      if (!seen.add(s.shard())) {
        problems.add("shard " + s.shard() + " is listed twice");
        continue;
      }
      String dir = SnapshotLayout.shardDirName(s.shard());
      if (!dir.equals(s.directory())) {
        problems.add("shard " + s.shard() + " is in directory '" + SafePaths.printable(s.directory())
            + "', expected " + dir);
      }
      if (s.files() == null || s.files().isEmpty()) {
        problems.add(dir + " lists no files");
      } else {
        files(m, dir, s.files(), 1, problems);
      }
    }
    Manifest.EmbeddingsInfo e = m.embeddings();
    if (e != null) {
      if (!SnapshotLayout.EMBEDDINGS.equals(e.directory())) {
        problems.add("stored vectors are in '" + SafePaths.printable(e.directory()) + "', expected "
            + SnapshotLayout.EMBEDDINGS);
      }
      files(m, SnapshotLayout.EMBEDDINGS, e.files() == null ? List.of() : e.files(), 1, problems);
    }
    Manifest.DocstoreEntry d = m.docstore();
    if (d != null) {
      if (!SnapshotLayout.PARENTS.equals(d.directory())) {
        problems.add("the docstore is in '" + SafePaths.printable(d.directory()) + "', expected " + SnapshotLayout.PARENTS);
      }
      List<Manifest.FileEntry> files = d.files() == null ? List.of() : d.files();
      files(m, SnapshotLayout.PARENTS, files, 2, problems);
      for (Manifest.FileEntry f : files) {
        if (f == null) {
          continue; // reported by files() as an empty file entry
        }
        String part = f.name() == null ? "" : f.name().substring(0, Math.max(0, f.name().indexOf('/')));
        boolean known = false;
        for (int s = 0; s < n; s++) {
          known |= part.equals(SnapshotLayout.shardDirName(s));
        }
        if (!known) {
          problems.add(SnapshotLayout.PARENTS + "/" + SafePaths.printable(f.name()) + " is not in a part of a listed shard");
        }
      }
    }
    Manifest.CorpusFilesEntry c = m.corpusFiles();
    if (c != null) {
      String file = SnapshotLayout.CORPUS_FILES;
      if (!file.equals(c.file())) {
        problems.add("the corpus files listing is '" + SafePaths.printable(c.file()) + "', expected " + file);
      }
      if (c.size() < 0) {
        problems.add(file + " has size " + c.size());
      }
      if (c.sha256() == null || !SHA256.matcher(c.sha256()).matches()) {
        problems.add(file + " has no valid sha256");
      }
      if (c.files() < 0 || c.kept() < 0 || c.kept() > c.files() || c.bytes() < 0) {
        problems.add(file + " counts " + c.files() + " files, " + c.kept() + " kept, " + c.bytes()
            + " bytes (expected 0 <= kept <= files, bytes >= 0)");
      }
    }
    return problems;
  }

  /**
   * A file another snapshot holds: only in format version 2 and later, and only by the id of another
   * snapshot of this root — never a path, a URI or another root, so that the file resolves under
   * {@code snapshots/} of the root the manifest was read from.
   */
  private static void reference(Manifest m, String file, String owner, List<String> problems) {
    if (m.formatVersion() < Manifest.FIRST_WITH_REFERENCES) {
      problems.add(file + " references snapshot '" + SafePaths.printable(owner) + "', which format version "
          + m.formatVersion() + " does not allow");
    } else if (!SnapshotLayout.isSnapshotId(owner)) {
      problems.add(file + " references '" + SafePaths.printable(owner)
          + "', which is not a snapshot id (a referenced file must be another snapshot's of this root)");
    } else if (owner.equals(m.id())) {
      problems.add(file + " references its own snapshot " + owner);
    }
  }

  /** Names (of {@code depth} segments), uniqueness, sizes and digests of one directory's files. */
  private static void files(Manifest m, String dir, List<Manifest.FileEntry> files, int depth,
      List<String> problems) {
    Set<String> names = new HashSet<>();
    for (Manifest.FileEntry f : files) {
      if (f == null) {
        problems.add(dir + " has an empty file entry");
        continue;
      }
      String name = f.name();
      if (!SafePaths.isSafe(name) || name.split("/").length != depth) {
        problems.add(dir + ": file name '" + SafePaths.printable(name) + "' is not a plain name inside " + dir);
        continue;
      }
      if (!names.add(name)) {
        problems.add(dir + "/" + name + " is listed twice");
      }
      if (f.size() < 0) {
        problems.add(dir + "/" + name + " has size " + f.size());
      }
      if (f.sha256() == null || !SHA256.matcher(f.sha256()).matches()) {
        problems.add(dir + "/" + name + " has no valid sha256");
      }
      if (f.snapshot() != null) {
        reference(m, dir + "/" + name, f.snapshot(), problems);
      }
    }
  }
}
