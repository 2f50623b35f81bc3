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
import java.util.concurrent.atomic.LongAdder;

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
  private boolean preloading; // guarded by this
  /** Queries embedded so far: a group behind a router that is sent the vector embeds none. */
  private final LongAdder queries = new LongAdder();
  /** The last queries' vectors ({@link SearchOptions#queryCache()}): a repeated query skips the model. */
  private final QueryVectorCache cache;
  /** What the cache knows this snapshot's model by: its name and fingerprint. */
  private final String modelKey;

  QueryEmbedder(Manifest manifest, int size) {
    this(manifest, size, 0);
  }

  QueryEmbedder(Manifest manifest, int size, int cacheSize) {
    if (size < 1) {
      throw new IllegalArgumentException("query embedders must be >= 1, was " + size);
    }
    this.manifest = manifest;
    this.snapshotId = manifest.id();
    this.size = size;
    String fingerprint = manifest.model().fingerprint();
    this.modelKey = manifest.model().source() + "|" + (fingerprint != null ? fingerprint : "");
    this.cache = new QueryVectorCache(modelKey, cacheSize);
  }

  float[] embed(String query) {
    queries.increment();
    float[] cached = cache.get(modelKey, query);
    if (cached != null) {
      return cached;
    }
    TextEmbedder embedder = acquire();
    float[] v;
    try {
      v = embedder.embedQuery(query);
    } finally {
      release(embedder);
    }
    cache.put(modelKey, query, v);
    return v;
  }

  /** Query-vector cache hits so far. */
  long cacheHits() {
    return cache.hits();
  }

  /** Query-vector cache misses so far (every embedded query while the cache is off). */
  long cacheMisses() {
    return cache.misses();
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

  /** Queries asked for a vector so far (cache hits included). */
  long queriesEmbedded() {
    return queries.sum();
  }

  synchronized int loaded() {
    return all.size();
  }

  /**
   * Starts loading one instance on a daemon thread (once, before any query has loaded one), so that the
   * model's load overlaps what the caller does meanwhile — opening the shards, starting a server — and
   * the first query finds it loaded, or waits for that load rather than starting another (issue 47.4:
   * the model's load was a third of a cold search's CPU, after the open). A failed preload is left for
   * the first query, which loads again and reports the failure as it always has.
   */
  void preload() {
    synchronized (this) {
      if (closed || preloading || !all.isEmpty() || loading > 0) {
        return;
      }
      preloading = true;
      loading++;
    }
    Thread t = new Thread(() -> {
      TextEmbedder created = null;
      try {
        // The model is resolved and checked here rather than by the caller: the check hashes the model
        // file (a fifth of a cold search's open on the caller's thread), which now overlaps the shards' open.
        created = TextEmbedder.open(spec(), 1, 1);
      } catch (RuntimeException | Error e) {
        // left for the first query
      } finally {
        synchronized (this) {
          loading--;
          preloading = false;
          if (created != null) {
            if (closed) {
              created.close();
            } else {
              all.add(created);
              idle.push(created);
            }
          }
          notifyAll();
        }
      }
    }, "kiln-query-model-preload");
    t.setDaemon(true);
    t.start();
  }

  private TextEmbedder acquire() {
    synchronized (this) {
      while (true) {
        checkOpen();
        if (!idle.isEmpty()) {
          return idle.pop();
        }
        if (!preloading && all.size() + loading < size) {
          break;
        }
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for a query embedder", e);
        }
      }
      loading++;
    }
    // Checked and loaded outside the lock: a model takes a while to load, and other queries keep the idle ones.
    TextEmbedder created = null;
    try {
      created = TextEmbedder.open(spec(), 1, 1);
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

  /**
   * The model, checked against the manifest once, before the first instance loads. Called under no lock:
   * the check hashes the model file; two first callers may both check, and both find the same.
   */
  private ModelSpec spec() {
    synchronized (this) {
      if (spec != null) {
        return spec;
      }
    }
    ModelSpec resolved = ModelRegistry.resolve(manifest.model().source());
    ModelCheck.mismatch(manifest, resolved).ifPresent(msg -> {
      throw new SnapshotException(msg + ": rebuild the snapshot with this model or restore the model it names");
    });
    synchronized (this) {
      if (spec == null) {
        spec = resolved;
      }
      return spec;
    }
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
