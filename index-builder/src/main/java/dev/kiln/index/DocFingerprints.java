package dev.kiln.index;

import dev.kiln.model.DocumentFingerprint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.IntroSorter;

/**
 * The fingerprints of every live document of a snapshot's shards ({@link ShardSchema#DOC_FP}), as a
 * sorted array of 128-bit values (unsigned byte order, as {@link DocFingerprintFile} stores them): 16
 * bytes a document (16 MB a million), looked up by binary search.
 * An incremental build's parse subtasks each hold one, to drop unchanged documents before anything is
 * shuffled. Read from the doc values alone: no stored field is decompressed.
 */
public final class DocFingerprints {
  private final long[] hi;
  private final long[] lo;
  private final int size;

  private DocFingerprints(long[] hi, long[] lo, int size) {
    this.hi = hi;
    this.lo = lo;
    this.size = size;
  }

  /** An empty set: nothing is unchanged. */
  public static DocFingerprints empty() {
    return new DocFingerprints(new long[0], new long[0], 0);
  }

  /**
   * Reads the fingerprints of every live chunk of {@code shardDirs}.
   *
   * @throws IOException also when a segment with live chunks has no fingerprints (a shard written
   *     before they existed): such a base cannot be continued
   */
  public static DocFingerprints read(List<Path> shardDirs) throws IOException {
    Collected c = new Collected();
    for (Path shard : shardDirs) {
      try (FSDirectory dir = FSDirectory.open(shard)) {
        c.add(dir, shard.toString());
      }
    }
    return sortedUnique(c.h, c.l, c.n);
  }

  /** The fingerprints of every live chunk of one shard opened as a Lucene directory (a base read on demand). */
  public static DocFingerprints read(Directory shard) throws IOException {
    Collected c = new Collected();
    c.add(shard, shard.toString());
    return sortedUnique(c.h, c.l, c.n);
  }

  /** Whether every segment with live chunks in {@code shard} carries fingerprints. */
  public static boolean present(Directory shard) throws IOException {
    return ShardSchema.onEveryLiveSegment(shard, ShardSchema.DOC_FP);
  }

  /** Fingerprints collected so far, unsorted, as two growing arrays of halves. */
  private static final class Collected {
    long[] h = new long[1024];
    long[] l = new long[1024];
    int n;

    void add(Directory dir, String shard) throws IOException {
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        for (LeafReaderContext leaf : reader.leaves()) {
          BinaryDocValues values = leaf.reader().getBinaryDocValues(ShardSchema.DOC_FP);
          if (values == null) {
            if (leaf.reader().numDocs() > 0) {
              throw new IOException("shard " + shard + " has chunks without document fingerprints ("
                  + ShardSchema.DOC_FP + "): written before incremental builds");
            }
            continue;
          }
          Bits live = leaf.reader().getLiveDocs();
          for (int d = values.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = values.nextDoc()) {
            if (live != null && !live.get(d)) {
              continue;
            }
            BytesRef b = values.binaryValue();
            if (b.length != DocumentFingerprint.BYTES) {
              throw new IOException("shard " + shard + ": a " + b.length + "-byte document fingerprint");
            }
            if (n == h.length) {
              h = Arrays.copyOf(h, n * 2);
              l = Arrays.copyOf(l, n * 2);
            }
            ByteBuffer bb = ByteBuffer.wrap(b.bytes, b.offset, b.length);
            h[n] = bb.getLong();
            l[n] = bb.getLong();
            n++;
          }
        }
      }
    }
  }

  /** Whether every segment with live chunks in {@code shardDir} carries fingerprints. */
  public static boolean present(Path shardDir) throws IOException {
    return ShardSchema.onEveryLiveSegment(shardDir, ShardSchema.DOC_FP);
  }

  static DocFingerprints sortedUnique(long[] h, long[] l, int n) {
    new IntroSorter() {
      private long ph;
      private long pl;

      @Override
      protected void setPivot(int i) {
        ph = h[i];
        pl = l[i];
      }

      @Override
      protected int comparePivot(int j) {
        int c = Long.compareUnsigned(ph, h[j]);
        return c != 0 ? c : Long.compareUnsigned(pl, l[j]);
      }

      @Override
      protected int compare(int i, int j) {
        int c = Long.compareUnsigned(h[i], h[j]);
        return c != 0 ? c : Long.compareUnsigned(l[i], l[j]);
      }

      @Override
      protected void swap(int i, int j) {
        long t = h[i];
        h[i] = h[j];
        h[j] = t;
        t = l[i];
        l[i] = l[j];
        l[j] = t;
      }
    }.sort(0, n);
    int u = 0;
    for (int i = 0; i < n; i++) {
      if (u == 0 || h[i] != h[u - 1] || l[i] != l[u - 1]) {
        h[u] = h[i];
        l[u] = l[i];
        u++;
      }
    }
    return new DocFingerprints(Arrays.copyOf(h, u), Arrays.copyOf(l, u), u);
  }

  /** Whether a live document of the shards has this fingerprint. */
  public boolean contains(byte[] fingerprint) {
    return search(size, i -> hi[(int) i], i -> lo[(int) i], fingerprint);
  }

  /**
   * Binary search for {@code fingerprint} among {@code n} fingerprints sorted in unsigned byte order,
   * the {@code i}-th read as its two big-endian halves: the one search of the array here and of the
   * mapped {@link DocFingerprintFile}.
   */
  static boolean search(long n, LongUnaryOperator hiAt, LongUnaryOperator loAt, byte[] fingerprint) {
    ByteBuffer bb = ByteBuffer.wrap(fingerprint);
    return search(0, n, hiAt, loAt, bb.getLong(0), bb.getLong(8));
  }

  /** As above, among the fingerprints {@code from} (inclusive) to {@code to} (exclusive), the target as its halves. */
  static boolean search(long from, long to, LongUnaryOperator hiAt, LongUnaryOperator loAt, long th, long tl) {
    long a = from;
    long b = to - 1;
    while (a <= b) {
      long m = (a + b) >>> 1;
      int c = Long.compareUnsigned(hiAt.applyAsLong(m), th);
      if (c == 0) {
        c = Long.compareUnsigned(loAt.applyAsLong(m), tl);
      }
      if (c == 0) {
        return true;
      }
      if (c < 0) {
        a = m + 1;
      } else {
        b = m - 1;
      }
    }
    return false;
  }

  /** The first 8 bytes of the {@code i}-th smallest fingerprint, big-endian. */
  long hi(int i) {
    return hi[i];
  }

  /** The last 8 bytes of the {@code i}-th smallest fingerprint, big-endian. */
  long lo(int i) {
    return lo[i];
  }

  /** Distinct fingerprints (documents). */
  public int size() {
    return size;
  }
}
