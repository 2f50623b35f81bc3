package dev.kiln.search;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.search.context.ParentLookup;
import dev.kiln.search.parents.ParentStore;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.ShardFilter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.lucene.util.IOUtils;

/**
 * What context assembly reads of a snapshot besides its shards: the parents in its docstore and the
 * model's tokenizer. Both are opened on first use, since most searches need neither; closing this
 * closes what was opened. Thread-safe.
 */
final class SnapshotLookups implements Closeable {
  private final Path snapshotsRoot;
  private final Manifest manifest;
  private final ShardFilter shards;
  private boolean closed; // guarded by this
  private ParentStore parentStore; // guarded by this
  private ModelTokenizer tokenizer; // guarded by this

  SnapshotLookups(Path snapshotsRoot, Manifest manifest, ShardFilter shards) {
    this.snapshotsRoot = snapshotsRoot;
    this.manifest = manifest;
    this.shards = shards;
  }

  /** Parents of the snapshot's chunks; without a docstore every chunk stands for itself. */
  ParentLookup parents() {
    if (manifest.docstore() == null) {
      return ParentLookup.NONE;
    }
    return hit -> {
      String parentId = hit.metadata().get("parent_id");
      if (parentId == null) {
        return Optional.empty();
      }
      return parentStore().get(parentId).map(p -> new ParentLookup.Parent(p.parentId(), p.text()));
    };
  }

  private synchronized ParentStore parentStore() {
    checkOpen();
    if (parentStore == null) {
      parentStore = ParentStore.open(snapshotsRoot, manifest, shards);
    }
    return parentStore;
  }

  /** Model tokens in {@code text}, counted outside the lock: the tokenizer is thread-safe. */
  int countTokens(String text) {
    ModelTokenizer t;
    synchronized (this) {
      checkOpen();
      if (tokenizer == null) {
        tokenizer = ModelTokenizer.open(ModelRegistry.resolve(manifest.model().source()));
      }
      t = tokenizer;
    }
    return t.countTokens(text);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("searcher for snapshot " + manifest.id() + " is closed");
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (!closed) {
      closed = true;
      ModelTokenizer t = tokenizer;
      IOUtils.close(parentStore, t == null ? null : t::close);
    }
  }
}
