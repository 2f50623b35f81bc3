package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SafePaths;
import dev.kiln.snapshot.SnapshotException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * The shards of one snapshot opened as a single {@link MultiReader}. Searching one composite reader
 * makes BM25 use corpus-wide term statistics and lets a single top-k collection span every shard,
 * so scores are comparable across shards without a merge step.
 */
final class ShardReaders implements Closeable {
  private final List<Directory> directories;
  private final MultiReader reader;
  /** The shard number of each sub-reader, in the reader's order. */
  private final int[] shardNumbers;

  private ShardReaders(List<Directory> directories, MultiReader reader, int[] shardNumbers) {
    this.directories = directories;
    this.reader = reader;
    this.shardNumbers = shardNumbers;
  }

  /** Opens every shard the manifest lists under {@code snapshotDir}; nothing stays open on failure. */
  static ShardReaders open(Path snapshotDir, Manifest manifest) {
    return open(snapshotDir, manifest, ShardSelection.ALL);
  }

  /**
   * Opens the shards {@code selection} serves, in the manifest's order; nothing stays open on failure.
   *
   * @throws SnapshotException when the selection reaches past the snapshot's shards
   */
  static ShardReaders open(Path snapshotDir, Manifest manifest, ShardSelection selection) {
    List<Manifest.ShardEntry> selected = selection.select(manifest);
    List<Directory> directories = new ArrayList<>();
    List<DirectoryReader> readers = new ArrayList<>();
    String current = null;
    try {
      for (Manifest.ShardEntry shard : selected) {
        current = shard.directory();
        // Memory-mapped explicitly: snapshots are read-only and the OS page cache is the cache.
        Directory dir = new MMapDirectory(SafePaths.resolve(snapshotDir, "shard directory", shard.directory()));
        directories.add(dir);
        readers.add(DirectoryReader.open(dir));
      }
      current = null;
      MultiReader multi = new MultiReader(readers.toArray(new IndexReader[0]), true);
      return new ShardReaders(directories, multi,
          selected.stream().mapToInt(Manifest.ShardEntry::shard).toArray());
    } catch (IOException | RuntimeException e) {
      List<Closeable> opened = new ArrayList<>(readers);
      opened.addAll(directories);
      IOUtils.closeWhileHandlingException(opened);
      if (e instanceof SnapshotException se) {
        throw se;
      }
      throw new SnapshotException("cannot open shard " + current + " of snapshot " + manifest.id()
          + ": " + e.getMessage(), e);
    }
  }

  /**
   * The stored vectors must be what the manifest says, or dense search would fail deep in Lucene.
   * Only dense search depends on them, so BM25 keeps working on such a snapshot.
   */
  static void checkVectors(MultiReader reader, Manifest manifest) {
    FieldInfo f = FieldInfos.getMergedFieldInfos(reader).fieldInfo(ShardSchema.VECTOR);
    if (f != null && f.getVectorDimension() != manifest.model().dimension()) {
      throw new SnapshotException("snapshot " + manifest.id() + " stores " + f.getVectorDimension()
          + "-d vectors but its manifest records " + manifest.model().dimension() + "-d vectors of model "
          + manifest.model().name() + ": the snapshot is inconsistent; dense search is refused");
    }
  }

  MultiReader reader() {
    return reader;
  }

  /** The shard numbers opened, in the reader's order (sub-reader i holds shard {@code shardNumbers()[i]}). */
  int[] shardNumbers() {
    return shardNumbers.clone();
  }

  /** Each opened shard's maxDoc, in the reader's order: where its doc ids start in the composite reader. */
  int[] shardMaxDocs() {
    int[] out = new int[shardNumbers.length];
    List<? extends IndexReader> subs = reader.getContext().children().stream().map(c -> c.reader()).toList();
    for (int i = 0; i < out.length; i++) {
      out[i] = subs.get(i).maxDoc();
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    // The reader first: it holds files of the directories open.
    List<Closeable> all = new ArrayList<>();
    all.add(reader);
    all.addAll(directories);
    IOUtils.close(all);
  }
}
