package dev.kiln.search;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The last {@code capacity} query vectors of one model, least recently used first out: a query typed
 * again (a user paging, a dashboard refreshing, a popular question) skips the model, which is about
 * half of a single hybrid query's time at 1M chunks with bge-small (docs/results/latency.md). Keyed by the model's identity
 * and the query's normalized text ({@link #normalize}), so a vector is only ever served for the model
 * that computed it, even if one cache were handed another model's lookups. Thread-safe; vectors are
 * copied in and out, so a caller that changes its array cannot change a cached one.
 */
final class QueryVectorCache {
  private final String model;
  private final int capacity;
  private final Map<String, float[]> entries; // guarded by this
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();

  /**
   * @param model the model's identity: its name and fingerprint (two models with one fingerprint make
   *     the same vectors)
   * @param capacity vectors kept; 0 turns the cache off (every lookup misses, nothing is kept)
   */
  QueryVectorCache(String model, int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("query cache size must be >= 0, was " + capacity);
    }
    this.model = model;
    this.capacity = capacity;
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
        return size() > QueryVectorCache.this.capacity;
      }
    };
  }

  /**
   * The text a query is cached under: stripped, every run of whitespace one space. The bundled models'
   * tokenizers split on whitespace and drop it, so the two texts are the same tokens and the same
   * vector (QueryVectorCacheTest checks it with the real model); case and punctuation are kept, since
   * a cased or punctuation-aware tokenizer would see them.
   */
  static String normalize(String query) {
    StringBuilder b = new StringBuilder(query.length());
    boolean space = false;
    for (int i = 0; i < query.length(); ) {
      int cp = query.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
        space = b.length() > 0;
      } else {
        if (space) {
          b.append(' ');
          space = false;
        }
        b.appendCodePoint(cp);
      }
    }
    return b.toString();
  }

  /** The cached vector of {@code query} by {@code model}, or null (a miss, counted). */
  float[] get(String model, String query) {
    if (capacity == 0 || !this.model.equals(model)) {
      misses.increment();
      return null;
    }
    float[] v;
    synchronized (this) {
      v = entries.get(key(model, query));
    }
    if (v == null) {
      misses.increment();
      return null;
    }
    hits.increment();
    return v.clone();
  }

  /** Keeps {@code vector} as {@code query}'s by {@code model}; a vector of another model is not kept. */
  void put(String model, String query, float[] vector) {
    if (capacity == 0 || !this.model.equals(model)) {
      return;
    }
    float[] copy = vector.clone();
    synchronized (this) {
      entries.put(key(model, query), copy);
    }
  }

  private static String key(String model, String query) {
    return model + '\u0000' + normalize(query);
  }

  String model() {
    return model;
  }

  int capacity() {
    return capacity;
  }

  synchronized int size() {
    return entries.size();
  }

  long hits() {
    return hits.sum();
  }

  long misses() {
    return misses.sum();
  }
}
