package dev.kiln.vectors;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The stored vectors one embed subtask may reuse, looked up by content key without holding them on
 * the heap: vectors are appended to a temporary file as they are read from the part files, and only
 * each key's 128 bits ({@link KeyBits}) and row number stay in memory, sorted for binary search —
 * 20 bytes a vector instead of a {@code String}, a {@code float[]} and a map entry (about 1.7 KB
 * for a 384-d model). A lookup reads one row from the file (the page cache keeps hot rows in RAM).
 * Single-threaded, like the task that uses it; {@link #close()} deletes the file.
 */
public final class StoredVectorIndex implements Closeable {
  private final int dimension;
  private final FileChannel file;
  private final Path path;
  private final long[] hi;
  private final long[] lo;
  private final int[] rows;
  private final ByteBuffer row;

  private StoredVectorIndex(int dimension, FileChannel file, Path path, long[] hi, long[] lo, int[] rows) {
    this.dimension = dimension;
    this.file = file;
    this.path = path;
    this.hi = hi;
    this.lo = lo;
    this.rows = rows;
    this.row = ByteBuffer.allocate(dimension * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** An index with nothing in it and no file. */
  public static StoredVectorIndex empty(int dimension) {
    return new StoredVectorIndex(dimension, null, null, new long[0], new long[0], new int[0]);
  }

  public int size() {
    return rows.length;
  }

  /** The temporary file holding the vectors ({@code null} for an empty index). */
  Path file() {
    return path;
  }

  /** The stored vector of {@code key}, or {@code null}. */
  public float[] get(String key) {
    if (rows.length == 0) {
      return null;
    }
    long[] k = KeyBits.of(key);
    long h = k[0];
    long l = k[1];
    int a = 0;
    int b = rows.length - 1;
    while (a <= b) {
      int m = (a + b) >>> 1;
      int c = compare(hi[m], lo[m], h, l);
      if (c < 0) {
        a = m + 1;
      } else if (c > 0) {
        b = m - 1;
      } else {
        return read(rows[m]);
      }
    }
    return null;
  }

  private float[] read(int r) {
    row.clear();
    long at = (long) r * dimension * Float.BYTES;
    try {
      while (row.hasRemaining()) {
        if (file.read(row, at + row.position()) < 0) {
          throw new IOException("stored vector file " + path + " ends before row " + r);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    row.flip();
    float[] v = new float[dimension];
    row.asFloatBuffer().get(v);
    return v;
  }

  private static int compare(long h1, long l1, long h2, long l2) {
    int c = Long.compareUnsigned(h1, h2);
    return c != 0 ? c : Long.compareUnsigned(l1, l2);
  }

  @Override
  public void close() throws IOException {
    if (file != null) {
      try {
        file.close();
      } finally {
        Files.deleteIfExists(path);
      }
    }
  }

  /** Collects vectors into a temporary file; {@link #build()} sorts the keys. */
  public static final class Builder implements Closeable {
    private final int dimension;
    private final Path path;
    private final FileChannel file;
    private final ByteBuffer buffer;
    private long[] hi = new long[1024];
    private long[] lo = new long[1024];
    private int n;
    private boolean built;

    public Builder(int dimension) throws IOException {
      this.dimension = dimension;
      this.path = Files.createTempFile("kiln-reuse-", ".f32");
      this.file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
      this.buffer = ByteBuffer.allocate(Math.max(dimension * Float.BYTES, 1 << 20)).order(ByteOrder.LITTLE_ENDIAN);
    }

    public void add(String key, float[] vector) throws IOException {
      if (vector.length != dimension) {
        throw new IllegalArgumentException("vector of " + vector.length + " dims in a " + dimension + "-d index");
      }
      if (buffer.remaining() < dimension * Float.BYTES) {
        flush();
      }
      for (float f : vector) {
        buffer.putFloat(f);
      }
      if (n == hi.length) {
        hi = Arrays.copyOf(hi, n * 2);
        lo = Arrays.copyOf(lo, n * 2);
      }
      long[] k = KeyBits.of(key);
      hi[n] = k[0];
      lo[n] = k[1];
      n++;
    }

    private void flush() throws IOException {
      buffer.flip();
      while (buffer.hasRemaining()) {
        file.write(buffer);
      }
      buffer.clear();
    }

    /** The index over everything added; the builder's file now belongs to it. */
    public StoredVectorIndex build() throws IOException {
      flush();
      built = true;
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      long[] h = hi;
      long[] l = lo;
      Arrays.sort(order, (x, y) -> compare(h[x], l[x], h[y], l[y]));
      long[] sh = new long[n];
      long[] sl = new long[n];
      int[] rows = new int[n];
      for (int i = 0; i < n; i++) {
        sh[i] = h[order[i]];
        sl[i] = l[order[i]];
        rows[i] = order[i];
      }
      hi = null;
      lo = null;
      return new StoredVectorIndex(dimension, file, path, sh, sl, rows);
    }

    /** Discards the file unless {@link #build()} handed it on. */
    @Override
    public void close() throws IOException {
      if (!built) {
        file.close();
        Files.deleteIfExists(path);
      }
    }
  }
}
