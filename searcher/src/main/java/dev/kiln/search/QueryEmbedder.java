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
  private final Manifest.ModelInfo model;
  private final String snapshotId;
  private TextEmbedder embedder;
  private boolean closed;

  QueryEmbedder(Manifest.ModelInfo model, String snapshotId) {
    this.model = model;
    this.snapshotId = snapshotId;
  }

  synchronized float[] embed(String query) {
    return embedder().embedQuery(query);
  }

  private TextEmbedder embedder() {
    if (closed) {
      throw new IllegalStateException("searcher for snapshot " + snapshotId + " is closed");
    }
    if (embedder == null) {
      ModelSpec spec = ModelRegistry.resolve(model.name());
      checkDimension(spec);
      embedder = TextEmbedder.open(spec, 1, 1);
    }
    return embedder;
  }

  /** Vectors of another size would fail deep inside Lucene; say what is wrong instead. */
  private void checkDimension(ModelSpec spec) {
    if (spec.dimension() != model.dimension()) {
      throw new SnapshotException("snapshot " + snapshotId + " records " + model.dimension()
          + "-d vectors for model " + model.name() + ", but the bundled " + spec.name()
          + " makes " + spec.dimension() + "-d vectors: the snapshot was built with another model");
    }
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
