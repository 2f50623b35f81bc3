package dev.kiln.operators;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The vectors an embed subtask embedded most recently in this build, by content key, least recently
 * used first out: an identical chunk that arrives again (a repeated document, boilerplate on every
 * page) takes the vector instead of a second inference. Bounded by entries, so memory is about
 * {@code capacity × (4 × dimension + ~100)} bytes (1.6 KB a 384-d vector); a key that has fallen out is
 * embedded again, which costs time, never correctness. Hot keys stay in, because every hit refreshes
 * them. Used by the task thread only.
 */
final class RecentVectors {
  private final Map<String, float[]> vectors;

  RecentVectors(int capacity) {
    this.vectors = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
        return size() > capacity;
      }
    };
  }

  float[] get(String key) {
    return vectors.get(key);
  }

  void put(String key, float[] vector) {
    vectors.put(key, vector);
  }

  int size() {
    return vectors.size();
  }
}
