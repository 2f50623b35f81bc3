package dev.kiln.vectors;

import dev.kiln.internal.PausePoint;
import dev.kiln.snapshot.Checksums;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The stored-vector parts of one embed subtask attempt, written as it goes: a part is closed (a
 * complete Parquet file, footer included) every {@code maxRows} vectors or {@code maxSeconds},
 * checksummed, and its SHA-256 recorded beside it ({@code NAME.sha256}, written after the part, so a
 * part with a checksum record is whole). A build that fails or is killed thus leaves every closed
 * part behind, verified, and the next build into the same root reuses them (resume): at most the
 * open part's vectors are embedded again. With a remote root each part is written to a local
 * temporary file and uploaded when it closes, by the caller's {@link PartTransfer}. Names carry subtask, attempt and sequence, so a retried
 * attempt never collides with the parts of the one before, and the number of embed subtasks: a
 * subtask's parts hold only the keys of its content-key partition ({@code ContentKey.partition}), so
 * a later build with as many embed subtasks reads only the parts of its own partition
 * ({@link ReusePart#neededBy}). A build's parts also carry its snapshot id (the tag), so that a snapshot
 * listing its own parts beside those it references from earlier snapshots (format 2) never has two
 * parts of one name: on a local root both are links in one directory.
 */
public final class RollingParts implements Closeable {
  /** Suffix of the checksum record written beside each closed part. */
  public static final String CHECKSUM_SUFFIX = ".sha256";

  /** What a tag may be: a snapshot id's characters. */
  static final Pattern TAG = Pattern.compile("[0-9A-Za-z][0-9A-Za-z-]{0,63}");

  private final PartTransfer transfer;
  private final String dir;
  private final int subtask;
  private final int subtasks;
  private final int attempt;
  private final String tag;
  private final String fingerprint;
  private final int dimension;
  private final long maxRows;
  private final long maxNanos;
  private final boolean remote;
  private VectorFiles.Writer writer;
  private Path file;
  private String name;
  private long rows;
  private long openedAt;
  private int sequence;

  public RollingParts(PartTransfer transfer, String dir, int subtask, int subtasks, int attempt, String fingerprint,
      int dimension, long maxRows, long maxSeconds) {
    this(transfer, dir, subtask, subtasks, attempt, null, fingerprint, dimension, maxRows, maxSeconds);
  }

  /**
   * @param tag the writing build's snapshot id, appended to every part's name; {@code null} for none
   *     (tests and benchmarks that write parts outside a snapshot)
   */
  public RollingParts(PartTransfer transfer, String dir, int subtask, int subtasks, int attempt, String tag,
      String fingerprint, int dimension, long maxRows, long maxSeconds) {
    if (tag != null && !TAG.matcher(tag).matches()) {
      throw new IllegalArgumentException("a part tag is letters, digits and '-', was '" + tag + "'");
    }
    this.tag = tag;
    this.transfer = transfer;
    this.dir = dir;
    this.subtask = subtask;
    this.subtasks = subtasks;
    this.attempt = attempt;
    this.fingerprint = fingerprint;
    this.dimension = dimension;
    this.maxRows = maxRows;
    this.maxNanos = maxSeconds * 1_000_000_000L;
    this.remote = transfer.isRemote(dir);
  }

  /**
   * The name of part {@code sequence} of attempt {@code attempt} of subtask {@code subtask} of
   * {@code subtasks}: {@code part-SSSSS-of-NNNNN-AA-QQQQQ.parquet}.
   */
  public static String partName(int subtask, int subtasks, int attempt, int sequence) {
    return partName(subtask, subtasks, attempt, sequence, null);
  }

  /** {@link #partName(int, int, int, int)} with the writing build's tag: {@code part-SSSSS-of-NNNNN-AA-QQQQQ-TAG.parquet}. */
  public static String partName(int subtask, int subtasks, int attempt, int sequence, String tag) {
    return String.format(Locale.ROOT, "part-%05d-of-%05d-%02d-%05d%s.parquet", subtask, subtasks, attempt, sequence,
        tag == null ? "" : "-" + tag);
  }

  public void write(String key, float[] vector) throws IOException {
    if (writer == null) {
      name = partName(subtask, subtasks, attempt, sequence++, tag);
      file = remote ? Files.createTempFile("kiln-vectors-" + subtask + "-", ".parquet") : Path.of(dir).resolve(name);
      Files.createDirectories(file.getParent());
      writer = new VectorFiles.Writer(file, fingerprint, dimension);
      rows = 0;
      openedAt = System.nanoTime();
    }
    writer.write(key, vector);
    rows++;
    if (rows >= maxRows || System.nanoTime() - openedAt >= maxNanos) {
      roll();
    }
  }

  /** Closes the open part, if any: complete, checksummed, uploaded for a remote root. */
  public void roll() throws IOException {
    if (writer == null) {
      return;
    }
    writer.close();
    writer = null;
    byte[] sha = (Checksums.sha256(file) + "\n").getBytes(StandardCharsets.US_ASCII);
    if (remote) {
      transfer.upload(file, dir, name);
      transfer.writeBytes(dir, name + CHECKSUM_SUFFIX, sha);
      Files.delete(file);
    } else {
      Path tmp = file.resolveSibling(name + CHECKSUM_SUFFIX + ".tmp");
      Files.write(tmp, sha);
      Files.move(tmp, file.resolveSibling(name + CHECKSUM_SUFFIX), StandardCopyOption.ATOMIC_MOVE);
    }
    file = null;
    // Crash tests kill the build here: at least one part is complete and recorded.
    PausePoint.reached("embed-part");
  }

  /** A failed attempt: the open part is dropped (it never gets a checksum record), closed ones stay. */
  @Override
  public void close() throws IOException {
    if (writer == null) {
      return;
    }
    try {
      writer.close();
    } finally {
      writer = null;
      if (remote && file != null) {
        Files.deleteIfExists(file);
      }
    }
  }
}
