package dev.kiln.search.parents;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.ShardFilter;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * Read side of a snapshot's parents docstore: parent id → stored parent. Open it with the manifest of
 * a snapshot that {@link dev.kiln.search.Searcher} has opened (and so verified). Thread-safe.
 */
public final class ParentStore implements Closeable {
  private final List<Directory> directories;
  private final MultiReader reader;
  private final IndexSearcher searcher;

  private ParentStore(List<Directory> directories, MultiReader reader) {
    this.directories = directories;
    this.reader = reader;
    this.searcher = new IndexSearcher(reader);
  }

  /** A stored parent. */
  public record Parent(String parentId, String docId, String title, String breadcrumb, String text) {}

  /**
   * @throws SnapshotException when the snapshot has no docstore (it was built without parent-child
   *     chunking) or its docstore cannot be opened
   */
  public static ParentStore open(Path snapshotsRoot, Manifest manifest) {
    return open(snapshotsRoot, manifest, ShardFilter.EVERY);
  }

  /**
   * The docstore parts of the shards {@code shards} selects: a parent lives in its chunks' shard, so a
   * shard group finds the parents of every hit it serves in its own parts (and holds no others).
   */
  public static ParentStore open(Path snapshotsRoot, Manifest manifest, ShardFilter shards) {
    Manifest.DocstoreEntry docstore = manifest.docstore();
    if (docstore == null) {
      throw new SnapshotException("snapshot " + manifest.id() + " has no parents docstore: build it with"
          + " chunker.parents.enabled: true to expand chunks to their parents");
    }
    if (!ParentStoreWriter.FORMAT.equals(docstore.format())) {
      throw new SnapshotException("snapshot " + manifest.id() + ": docstore format '" + docstore.format()
          + "' is not supported (expected " + ParentStoreWriter.FORMAT + ")");
    }
    SnapshotLayout layout = new SnapshotLayout(snapshotsRoot);
    List<Directory> dirs = new ArrayList<>();
    List<IndexReader> readers = new ArrayList<>();
    try {
      for (Manifest.ShardEntry shard : shards.select(manifest)) {
        Directory dir = new MMapDirectory(layout.parentsDir(manifest.id(), shard.shard()));
        dirs.add(dir);
        readers.add(DirectoryReader.open(dir));
      }
      return new ParentStore(dirs, new MultiReader(readers.toArray(new IndexReader[0])));
    } catch (IOException e) {
      IOUtils.closeWhileHandlingException(readers);
      IOUtils.closeWhileHandlingException(dirs);
      throw new SnapshotException("cannot open the parents docstore of snapshot " + manifest.id() + ": "
          + e.getMessage(), e);
    }
  }

  /** Parents stored. */
  public int size() {
    return reader.numDocs();
  }

  public Optional<Parent> get(String parentId) {
    try {
      TopDocs top = searcher.search(new TermQuery(new Term(ParentStoreWriter.PARENT_ID, parentId)), 1);
      if (top.scoreDocs.length == 0) {
        return Optional.empty();
      }
      Document d = searcher.storedFields().document(top.scoreDocs[0].doc);
      return Optional.of(new Parent(d.get(ParentStoreWriter.PARENT_ID), d.get(ParentStoreWriter.DOC_ID),
          d.get(ParentStoreWriter.TITLE), d.get(ParentStoreWriter.BREADCRUMB), d.get(ParentStoreWriter.TEXT)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read parent " + parentId, e);
    }
  }

  @Override
  public void close() throws IOException {
    IOUtils.close(reader);
    IOUtils.close(directories);
  }
}
