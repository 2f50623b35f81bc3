package dev.kiln.publish;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/** Lists a shard directory's files with their sizes and SHA-256 for the manifest. */
public final class ManifestFiles {
  /** Lucene's lock file is empty, meaningless to readers, and may be removed: never listed. */
  static final String WRITE_LOCK = "write.lock";

  private ManifestFiles() {}

  public static List<Manifest.FileEntry> describe(Path shardDir) throws IOException {
    return describe(shardDir, null, null, List.of());
  }

  /**
   * As {@link #describe(Path)} for a shard that continues {@code baseDir}: a file that is the very
   * file of the base (a hard link: the same inode, {@link Files#isSameFile}) with the size the base's
   * manifest lists takes the base's recorded SHA-256 instead of being hashed again. That checksum is
   * the one the base was verified against when it was published, so the new manifest still records
   * what the bytes must be; only the new files are read. Such a file is listed as a reference to the
   * snapshot that holds it (format version 2: {@code baseId}, or the snapshot the base itself
   * references): a remote root then uploads only the shard's new files, and a local root's hard link
   * costs nothing.
   */
  public static List<Manifest.FileEntry> describe(Path shardDir, Path baseDir, String baseId,
      List<Manifest.FileEntry> baseFiles) throws IOException {
    Map<String, Manifest.FileEntry> known = new HashMap<>();
    for (Manifest.FileEntry f : baseFiles) {
      known.put(f.name(), f);
    }
    List<Manifest.FileEntry> files = new ArrayList<>();
    try (Stream<Path> list = Files.list(shardDir)) {
      for (Path p : list.sorted().toList()) {
        String name = p.getFileName().toString();
        if (name.equals(WRITE_LOCK) || !Files.isRegularFile(p)) {
          continue;
        }
        long size = Files.size(p);
        Manifest.FileEntry base = known.get(name);
        if (base != null && base.size() == size && baseDir != null && Files.exists(baseDir.resolve(name))
            && Files.isSameFile(p, baseDir.resolve(name))) {
          files.add(base.sharedFrom(baseId));
          continue;
        }
        String sha = Checksums.sha256(p);
        // Written again with the very bytes the base holds (a shard's fingerprint file when nothing in
        // it changed): shared all the same, so a remote root is not sent the same bytes twice.
        if (base != null && base.size() == size && base.sha256().equals(sha) && baseId != null && baseDir != null
            && Files.isRegularFile(baseDir.resolve(name))) {
          relink(p, baseDir.resolve(name));
          files.add(base.sharedFrom(baseId));
        } else {
          files.add(new Manifest.FileEntry(name, size, sha));
        }
      }
    }
    return files;
  }

  /**
   * The files of a shard continued over a base read on demand ({@code BaseOverlayDirectory}): those
   * in {@code shardDir}, which the writer wrote, hashed; and the base files it still shares
   * ({@code shared}), listed as references with the base manifest's checksums.
   */
  public static List<Manifest.FileEntry> describeOver(Path shardDir, Set<String> shared, String baseId,
      List<Manifest.FileEntry> baseFiles) throws IOException {
    List<Manifest.FileEntry> files = new ArrayList<>();
    for (Manifest.FileEntry f : baseFiles) {
      if (shared.contains(f.name())) {
        files.add(f.sharedFrom(baseId));
      }
    }
    if (files.size() != shared.size()) {
      throw new IOException("shard " + shardDir + " shares files its base manifest does not list: " + shared);
    }
    try (Stream<Path> list = Files.list(shardDir)) {
      for (Path p : list.sorted().toList()) {
        String name = p.getFileName().toString();
        if (name.equals(WRITE_LOCK) || !Files.isRegularFile(p) || name.startsWith(".")) {
          continue;
        }
        if (shared.contains(name)) {
          throw new IOException("shard " + shardDir + " holds " + name + ", a file of its base");
        }
        files.add(new Manifest.FileEntry(name, Files.size(p), Checksums.sha256(p)));
      }
    }
    files.sort(Comparator.comparing(Manifest.FileEntry::name));
    return files;
  }

  /** Replaces {@code copy} by a hard link of {@code original} (same bytes), or leaves the copy where links fail. */
  private static void relink(Path copy, Path original) throws IOException {
    Path tmp = copy.resolveSibling("." + copy.getFileName() + ".link");
    try {
      Files.deleteIfExists(tmp);
      Files.createLink(tmp, original);
      Files.move(tmp, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | UnsupportedOperationException e) {
      Files.deleteIfExists(tmp); // the copy holds the same bytes: only the disk space is not shared
    }
  }
}
