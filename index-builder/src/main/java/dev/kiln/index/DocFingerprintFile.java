package dev.kiln.index;

import dev.kiln.model.DocumentFingerprint;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.NIOFSDirectory;

/**
 * A shard's document fingerprints as a file beside its segments ({@value #NAME}, format version 1): the
 * distinct {@link ShardSchema#DOC_FP} values of its live chunks, sorted, so that an incremental build's
 * parse subtasks look a document up in its own shard's file, memory-mapped, instead of each reading
 * and sorting every shard's doc values onto its heap (16 bytes a document per subtask: 1.6 GB at 10⁸).
 *
 * <p>Layout: Lucene's codec header ({@value #CODEC}, version 1), then the fingerprints, 16 bytes each as
 * {@link DocumentFingerprint} makes them, ascending in unsigned byte order, no duplicates, then
 * Lucene's codec footer (CRC-32 of everything before it). The count is the data length divided by 16.
 * The shard writer writes it after its last merge ({@link #write}); the manifest lists and hashes it
 * with the shard's other files. A continuing writer does not link it from its base ({@link
 * BaseSegments}): each snapshot's shard gets its own.
 */
public final class DocFingerprintFile {
  /** The file's name in a shard directory: no leading underscore, so Lucene never takes it for its own. */
  public static final String NAME = SnapshotLayout.SHARD_FINGERPRINTS;

  static final String CODEC = "KilnDocFingerprints";
  static final int VERSION = 1;
  private static final int BYTES = DocumentFingerprint.BYTES;
  /** Mapped in regions of 2^30 bytes (a multiple of 16): a buffer addresses at most 2 GB. */
  private static final int REGION_SHIFT = 30;

  /** Bits of a fingerprint's first byte pairs that pick its bucket: 2^16 buckets (256 KB) at most. */
  private static final int MAX_BUCKET_BITS = 16;
  private final ByteBuffer[] regions;
  private final long count;
  /**
   * Where each bucket of fingerprints starts (by their top {@link #bucketBits} bits), and the count
   * last: fingerprints are SHA-256 bits, spread evenly, so a lookup searches a few entries of one
   * bucket instead of the whole file. A binary search over the mapping missed the cache on nearly
   * every probe (19 of them at 500,000 documents) and was a tenth of a rebuild's parse stage; the table
   * is read once, in one pass over the file, when it is opened. {@code null} for a file of 2^31
   * fingerprints or more (then the whole file is searched).
   */
  private final int[] buckets;
  private final int bucketBits;

  private DocFingerprintFile(ByteBuffer[] regions, long count) {
    this.regions = regions;
    this.count = count;
    if (count >= Integer.MAX_VALUE) {
      this.buckets = null;
      this.bucketBits = 0;
      return;
    }
    // Two to four fingerprints a bucket, 2^16 buckets at most (about 8 at 500,000).
    int bits = count < 8 ? 0 : Math.min(MAX_BUCKET_BITS, 62 - Long.numberOfLeadingZeros(count));
    int[] starts = new int[(1 << bits) + 1];
    int next = 0; // the next bucket whose start is not set yet
    for (int i = 0; i < count; i++) {
      int bucket = bits == 0 ? 0 : (int) (longAt((long) i * BYTES) >>> (64 - bits));
      while (next <= bucket) {
        starts[next++] = i;
      }
    }
    while (next < starts.length) {
      starts[next++] = (int) count;
    }
    this.buckets = starts;
    this.bucketBits = bits;
  }

  /**
   * Writes the file for the committed shard in {@code shardDir} from its doc values, replacing any
   * (through a new file moved over it, so that a file shared by hard link is never written into).
   *
   * @return the number of fingerprints written, or -1 when a segment with live chunks has none (a
   *     shard continued from one written before fingerprints existed): then no file is written
   */
  public static long write(Path shardDir) throws IOException {
    try (Directory shard = FSDirectory.open(shardDir)) {
      return write(shardDir, shard);
    }
  }

  /**
   * As {@link #write(Path)}, the fingerprints read from {@code shard} — the committed shard as a Lucene
   * directory, which over a base read on demand holds more than {@code shardDir} — and the file written
   * into {@code shardDir}.
   */
  public static long write(Path shardDir, Directory shard) throws IOException {
    if (!DocFingerprints.present(shard)) {
      Files.deleteIfExists(shardDir.resolve(NAME));
      return -1;
    }
    DocFingerprints fps = DocFingerprints.read(shard);
    String tmp = NAME + ".tmp";
    Files.deleteIfExists(shardDir.resolve(tmp));
    try (Directory dir = FSDirectory.open(shardDir)) {
      try (IndexOutput out = dir.createOutput(tmp, IOContext.DEFAULT)) {
        CodecUtil.writeHeader(out, CODEC, VERSION);
        byte[] fp = new byte[BYTES];
        ByteBuffer bb = ByteBuffer.wrap(fp);
        for (int i = 0; i < fps.size(); i++) {
          bb.putLong(0, fps.hi(i)).putLong(8, fps.lo(i));
          out.writeBytes(fp, BYTES);
        }
        CodecUtil.writeFooter(out);
      }
      dir.sync(List.of(tmp));
    }
    Files.move(shardDir.resolve(tmp), shardDir.resolve(NAME), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    return fps.size();
  }

  /** Whether {@code shardDir} has the file. */
  public static boolean present(Path shardDir) {
    return Files.isRegularFile(shardDir.resolve(NAME));
  }

  /**
   * Opens the file of {@code shardDir}, its header and footer checked (not its checksum: the manifest's
   * SHA-256 covers the file, as it covers the segments), memory-mapped: nothing is read onto the heap.
   *
   * @throws IOException when the file is missing, of another version, or not header + 16·n + footer bytes
   */
  public static DocFingerprintFile open(Path shardDir) throws IOException {
    long dataStart = CodecUtil.headerLength(CODEC);
    long length;
    try (Directory dir = NIOFSDirectory.open(shardDir); IndexInput in = dir.openInput(NAME, IOContext.READONCE)) {
      CodecUtil.checkHeader(in, CODEC, VERSION, VERSION);
      CodecUtil.retrieveChecksum(in); // the footer's structure and the file's length against it
      length = in.length();
    } catch (CorruptIndexException | IndexFormatTooOldException
        | IndexFormatTooNewException e) {
      throw new IOException("document fingerprints " + shardDir.resolve(NAME) + ": " + e.getMessage(), e);
    }
    long data = length - dataStart - CodecUtil.footerLength();
    if (data < 0 || data % BYTES != 0) {
      throw new IOException("document fingerprints " + shardDir.resolve(NAME) + ": " + data
          + " bytes of fingerprints, not a multiple of " + BYTES);
    }
    long regionBytes = 1L << REGION_SHIFT;
    int n = (int) ((data + regionBytes - 1) >>> REGION_SHIFT);
    ByteBuffer[] regions = new ByteBuffer[n];
    try (FileChannel ch = FileChannel.open(shardDir.resolve(NAME), StandardOpenOption.READ)) {
      for (int r = 0; r < n; r++) {
        long from = (long) r << REGION_SHIFT;
        regions[r] = ch.map(FileChannel.MapMode.READ_ONLY, dataStart + from, Math.min(regionBytes, data - from))
            .order(ByteOrder.BIG_ENDIAN);
      }
    }
    return new DocFingerprintFile(regions, data / BYTES);
  }

  /** The number of fingerprints (distinct documents). */
  public long size() {
    return count;
  }

  /** Whether the shard has a live document with this fingerprint: a binary search over the mapping. */
  public boolean contains(byte[] fingerprint) {
    if (buckets == null) {
      return DocFingerprints.search(count, i -> longAt(i * BYTES), i -> longAt(i * BYTES + 8), fingerprint);
    }
    ByteBuffer target = ByteBuffer.wrap(fingerprint);
    long hi = target.getLong(0);
    int bucket = bucketBits == 0 ? 0 : (int) (hi >>> (64 - bucketBits));
    return DocFingerprints.search(buckets[bucket], buckets[bucket + 1], i -> longAt(i * BYTES),
        i -> longAt(i * BYTES + 8), hi, target.getLong(8));
  }

  /** The big-endian long at byte {@code at} of the fingerprints (never across a region: 16 divides it). */
  private long longAt(long at) {
    return regions[(int) (at >>> REGION_SHIFT)].getLong((int) (at & ((1L << REGION_SHIFT) - 1)));
  }
}
