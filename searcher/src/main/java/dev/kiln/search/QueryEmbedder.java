package dev.kiln.search;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import java.io.Closeable;

/**
 * Embeds queries with the model a snapshot was built with. The model is loaded on first use so a
 * BM25-only searcher never pays for it, and calls are serialised because {@link TextEmbedder} is not
 * thread-safe; a query is one short sequence, so one intra-op thread is enough.
 */
final class QueryEmbedder implements Closeable {
  private final Manifest manifest;
  private final String snapshotId;
  private TextEmbedder embedder;
  private boolean closed;

  QueryEmbedder(Manifest manifest) {
    this.manifest = manifest;
    this.snapshotId = manifest.id();
  }

  synchronized float[] embed(String query) {
    return embedder().embedQuery(query);
  }

  private TextEmbedder embedder() {
    if (closed) {
      throw new IllegalStateException("searcher for snapshot " + snapshotId + " is closed");
    }
    if (embedder == null) {
      ModelSpec spec = ModelRegistry.resolve(manifest.model().source());
      ModelCheck.mismatch(manifest, spec).ifPresent(msg -> {
        throw new SnapshotException(msg + ": rebuild the snapshot with this model or restore the model it names");
      });
      embedder = TextEmbedder.open(spec, 1, 1);
    }
    return embedder;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (embedder != null) {
      embedder.close();
      embedder = null;
    }
  }
}
