package dev.kiln.vectors;

/**
 * Document ids kept as their 128 bits ({@link KeyBits#ofId}), each with a {@code long}, in open addressing (at most
 * half full): {@link KeySet} with a value, about 50 bytes an entry. The shard writers of an incremental
 * build keep in it the ids of the documents they keep, each with where its record was read.
 */
public final class KeyLongMap {
  /** What {@link #get} returns for a key not in the map. */
  public static final long MISSING = Long.MIN_VALUE;

  private long[] hi = new long[1024];
  private long[] lo = new long[1024];
  private long[] values = new long[1024];
  private boolean[] used = new boolean[1024];
  private int size;

  /**
   * Sets the value of document id {@code key} (its {@link KeyBits#ofId}); false when the key was already
   * there (its value is replaced).
   */
  public boolean put(String key, long value) {
    long[] k = KeyBits.ofId(key);
    return put(k[0], k[1], value);
  }

  public boolean put(long h, long l, long value) {
    if ((size + 1) * 2 > used.length) {
      grow();
    }
    int mask = used.length - 1;
    int i = (int) (h ^ (h >>> 32)) & mask;
    while (used[i]) {
      if (hi[i] == h && lo[i] == l) {
        values[i] = value;
        return false;
      }
      i = (i + 1) & mask;
    }
    used[i] = true;
    hi[i] = h;
    lo[i] = l;
    values[i] = value;
    size++;
    return true;
  }

  /** The value of the key given as its {@link KeyBits}, or {@link #MISSING}. */
  public long get(long h, long l) {
    int mask = used.length - 1;
    int i = (int) (h ^ (h >>> 32)) & mask;
    while (used[i]) {
      if (hi[i] == h && lo[i] == l) {
        return values[i];
      }
      i = (i + 1) & mask;
    }
    return MISSING;
  }

  public boolean containsKey(long h, long l) {
    return get(h, l) != MISSING;
  }

  private void grow() {
    long[] oh = hi;
    long[] ol = lo;
    long[] ov = values;
    boolean[] ou = used;
    hi = new long[oh.length * 2];
    lo = new long[oh.length * 2];
    values = new long[oh.length * 2];
    used = new boolean[oh.length * 2];
    size = 0;
    for (int i = 0; i < ou.length; i++) {
      if (ou[i]) {
        put(oh[i], ol[i], ov[i]);
      }
    }
  }

  public int size() {
    return size;
  }
}
