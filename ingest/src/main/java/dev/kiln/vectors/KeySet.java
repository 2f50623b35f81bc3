package dev.kiln.vectors;

/**
 * A set of content keys kept as their 128 bits ({@link KeyBits}) in open addressing (at most half full): under 40 bytes a
 * key, where a {@code HashSet<String>} of SHA-256 hex keys takes about 150. The embed stage
 * uses it to write each key once into its part file; the shard writers of an incremental build use it
 * for the document ids they keep or replace, as {@link KeyBits#ofId} (always hashed: ids are the
 * corpus's, and a hex-looking one must not be read as a content key).
 */
public final class KeySet {
  private long[] hi = new long[1024];
  private long[] lo = new long[1024];
  private boolean[] used = new boolean[1024];
  private int size;

  /** Adds {@code key}; false when it was already there. */
  public boolean add(String key) {
    long[] k = KeyBits.of(key);
    return add(k[0], k[1]);
  }

  /** Adds a key given as its {@link KeyBits} (or a document id's {@link KeyBits#ofId}); false when it was there. */
  public boolean add(long[] key) {
    return add(key[0], key[1]);
  }

  /** Adds a key given as its {@link KeyBits}; false when it was already there. */
  public boolean add(long h, long l) {
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

  /** Whether {@code key} was added. */
  public boolean contains(String key) {
    long[] k = KeyBits.of(key);
    return contains(k[0], k[1]);
  }

  /** Whether a key given as its two halves ({@link #add(long[])}) was added. */
  public boolean contains(long[] key) {
    return contains(key[0], key[1]);
  }

  /** Whether a key given as its {@link KeyBits} was added. */
  public boolean contains(long h, long l) {
    int mask = used.length - 1;
    int i = (int) (h ^ (h >>> 32)) & mask;
    while (used[i]) {
      if (hi[i] == h && lo[i] == l) {
        return true;
      }
      i = (i + 1) & mask;
    }
    return false;
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
