package dev.kiln.search;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import java.io.Closeable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Embeds queries with the model a snapshot was built with, on a pool of up to {@code size} model
 * instances ({@link TextEmbedder} is not thread-safe, so each call holds one instance). Instances are
 * loaded when concurrent queries first need them, so a BM25-only searcher never loads the model and a
 * lightly used one loads it once. A query is one short sequence, so each instance runs one intra-op
 * thread and embeds one text per call: the vector is the same whichever instance computes it.
 */
final class QueryEmbedder implements Closeable {
  private final Manifest manifest;
  private final String snapshotId;
  private final int size;
  private final Deque<TextEmbedder> idle = new ArrayDeque<>(); // guarded by this
  private final List<TextEmbedder> all = new ArrayList<>(); // guarded by this
  private ModelSpec spec; // guarded by this
  private int loading; // instances being loaded, guarded by this
  private boolean closed; // guarded by this

  QueryEmbedder(Manifest manifest, int size) {
    if (size < 1) {
      throw new IllegalArgumentException("query embedders must be >= 1, was " + size);
    }
    this.manifest = manifest;
    this.snapshotId = manifest.id();
    this.size = size;
  }

  float[] embed(String query) {
    TextEmbedder embedder = acquire();
    try {
      return embedder.embedQuery(query);
    } finally {
      release(embedder);
    }
  }

  /** Passage text (a rewriter's hypothetical answer) embedded as chunks were, with the passage prefix. */
  float[] embedPassage(String passage) {
    TextEmbedder embedder = acquire();
    try {
      return embedder.embedPassages(List.of(passage))[0];
    } finally {
      release(embedder);
    }
  }

  /** Model instances loaded so far. */
  synchronized int loaded() {
    return all.size();
  }

  private TextEmbedder acquire() {
    ModelSpec toLoad;
    synchronized (this) {
      while (true) {
        checkOpen();
        if (!idle.isEmpty()) {
          return idle.pop();
        }
        if (all.size() + loading < size) {
          break;
        }
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for a query embedder", e);
        }
      }
      toLoad = spec();
      loading++;
    }
    // Loaded outside the lock: a model takes a while to load, and other queries keep the idle ones.
    TextEmbedder created = null;
    try {
      created = TextEmbedder.open(toLoad, 1, 1);
    } finally {
      synchronized (this) {
        loading--;
        notifyAll();
        if (created != null) {
          if (closed) {
            created.close();
            created = null;
          } else {
            all.add(created);
          }
        }
      }
    }
    if (created == null) {
      synchronized (this) {
        checkOpen(); // closed while it loaded
      }
    }
    return created;
  }

  private synchronized void release(TextEmbedder embedder) {
    if (closed) {
      embedder.close();
    } else {
      idle.push(embedder);
      notifyAll();
    }
  }

  /** The model, checked against the manifest once, before the first instance loads. */
  private ModelSpec spec() {
    if (spec == null) {
      ModelSpec resolved = ModelRegistry.resolve(manifest.model().source());
      ModelCheck.mismatch(manifest, resolved).ifPresent(msg -> {
        throw new SnapshotException(msg + ": rebuild the snapshot with this model or restore the model it names");
      });
      spec = resolved;
    }
    return spec;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("searcher for snapshot " + snapshotId + " is closed");
    }
  }

  /** Closes the idle instances now; those in use close when their query returns them. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    while (!idle.isEmpty()) {
      idle.pop().close();
    }
    notifyAll();
  }
}
