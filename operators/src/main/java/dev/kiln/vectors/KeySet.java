package dev.kiln.vectors;

/**
 * A set of content keys kept as their 128 bits ({@link KeyBits}) in open addressing (at most half full): under 40 bytes a
 * key, where a {@code HashSet<String>} of SHA-256 hex keys takes about 150. The embed stage
 * uses it to write each key once into its part file.
 */
public final class KeySet {
  private long[] hi = new long[1024];
  private long[] lo = new long[1024];
  private boolean[] used = new boolean[1024];
  private int size;

  /** Adds {@code key}; false when it was already there. */
  public boolean add(String key) {
    return add(KeyBits.hi(key), KeyBits.lo(key));
  }

  private boolean add(long h, long l) {
    if ((size + 1) * 2 > used.length) {
      grow();
    }
    int mask = used.length - 1;
    int i = (int) (h ^ (h >>> 32)) & mask;
    while (used[i]) {
      if (hi[i] == h && lo[i] == l) {
        return false;
      }
      i = (i + 1) & mask;
    }
    used[i] = true;
    hi[i] = h;
    lo[i] = l;
    size++;
    return true;
  }

  private void grow() {
    long[] oh = hi;
    long[] ol = lo;
    boolean[] ou = used;
    hi = new long[oh.length * 2];
    lo = new long[oh.length * 2];
    used = new boolean[oh.length * 2];
    size = 0;
    for (int i = 0; i < ou.length; i++) {
      if (ou[i]) {
        add(oh[i], ol[i]);
      }
    }
  }

  public int size() {
    return size;
  }
}
