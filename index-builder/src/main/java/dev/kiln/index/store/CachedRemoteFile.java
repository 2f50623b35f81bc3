package dev.kiln.index.store;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.BitSet;
import java.util.HexFormat;

/**
 * One immutable remote file as Lucene reads it: each block of {@link #blockBytes} is fetched the first
 * time any read touches it and kept in a sparse local file, so what is never read — the vectors, the
 * stored text and the graph of a base segment that a rebuild only appends to and deletes from — is
 * never downloaded. Reads of fetched blocks are positional reads of the local file (the page cache).
 * Shared by every input opened on the file (clones, slices, a reader and a writer of the same base).
 */
public final class CachedRemoteFile implements Closeable {
  /** Block size (default 1 MiB; {@code -Dkiln.remote.block-bytes=N}): one ranged request each. */
  public static final int DEFAULT_BLOCK_BYTES = Integer.getInteger("kiln.remote.block-bytes", 1 << 20);

  private final String name;
  private final long length;
  private final RangeReader reader;
  private final FileChannel cache;
  private final int blockBytes;
  private final BitSet fetched = new BitSet();
  private final FetchStats stats;

  /**
   * @param name the file's name, for messages
   * @param length its size, as the manifest records it
   * @param cacheFile the local sparse file to keep fetched blocks in (created; deleted by the caller)
   */
  public CachedRemoteFile(String name, long length, RangeReader reader, Path cacheFile, int blockBytes,
      FetchStats stats) throws IOException {
    if (blockBytes <= 0) {
      throw new IllegalArgumentException("block size must be positive: " + blockBytes);
    }
    this.name = name;
    this.length = length;
    this.reader = reader;
    this.blockBytes = blockBytes;
    this.stats = stats;
    this.cache = FileChannel.open(cacheFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE, StandardOpenOption.SPARSE);
  }

  public String name() {
    return name;
  }

  /** Fetches the blocks not read yet, so that the file is {@link #whole}. */
  public void fetchRest() throws IOException {
    if (length > 0) {
      ensure(0, (length - 1) / blockBytes);
    }
  }

  /** Whether every block of the file has been fetched (a merge read it whole, say). */
  public synchronized boolean whole() {
    long blocks = (length + blockBytes - 1) / blockBytes;
    return fetched.cardinality() == blocks;
  }

  /**
   * The SHA-256 (hex) of the fetched file, read from the local cache; only for a {@link #whole} file.
   * What lets a build check a base file it read whole against the manifest without a second download.
   */
  public synchronized String sha256() throws IOException {
    if (!whole()) {
      throw new IllegalStateException(name + " was not read whole");
    }
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    ByteBuffer buf = ByteBuffer.allocate(1 << 16);
    for (long at = 0; at < length; ) {
      buf.clear();
      buf.limit((int) Math.min(buf.capacity(), length - at));
      int r = cache.read(buf, at);
      if (r < 0) {
        throw new EOFException("cache of " + name + " ends at " + at);
      }
      buf.flip();
      digest.update(buf);
      at += r;
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  public long length() {
    return length;
  }

  /** Reads {@code dst.remaining()} bytes at {@code position}, fetching the blocks not yet here. */
  void read(long position, ByteBuffer dst) throws IOException {
    int n = dst.remaining();
    if (position < 0 || position + n > length) {
      throw new EOFException("read past the end of " + name + ": " + position + "+" + n + " > " + length);
    }
    if (n == 0) {
      return;
    }
    ensure(position / blockBytes, (position + n - 1) / blockBytes);
    long at = position;
    while (dst.hasRemaining()) {
      int r = cache.read(dst, at);
      if (r < 0) {
        throw new EOFException("cache of " + name + " ends at " + at);
      }
      at += r;
    }
  }

  /** Fetches blocks {@code first..last} that are not here yet. */
  private synchronized void ensure(long first, long last) throws IOException {
    for (long b = first; b <= last; b++) {
      if (fetched.get((int) b)) {
        continue;
      }
      long start = b * blockBytes;
      int len = (int) Math.min(blockBytes, length - start);
      byte[] buf = new byte[len];
      reader.read(start, buf, 0, len);
      ByteBuffer src = ByteBuffer.wrap(buf);
      long at = start;
      while (src.hasRemaining()) {
        at += cache.write(src, at);
      }
      fetched.set((int) b);
      stats.fetched(len);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      reader.close();
    } finally {
      cache.close();
    }
  }
}
