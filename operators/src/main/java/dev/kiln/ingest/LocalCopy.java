package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * A corpus file as a local {@link File}, which the PDF and Office libraries need for random access
 * without loading the file into memory. An uncompressed file on the local file system is used in place;
 * any other (a {@code .gz}, or a file on S3 or HDFS) is copied through Flink's file system to a
 * temporary file, decompressed on the way, of at most {@code ingest.max-spool-bytes}. Closing deletes the
 * copy.
 */
final class LocalCopy implements Closeable {
  private final File file;
  private final boolean temporary;

  private LocalCopy(File file, boolean temporary) {
    this.file = file;
    this.temporary = temporary;
  }

  /**
   * @throws MalformedRecordException {@code too_large} when the copy would exceed {@code maxBytes},
   *     {@code truncated_compressed} when a {@code .gz} is damaged
   * @throws IOException when the file system fails (the task fails and is retried)
   */
  static LocalCopy of(Path path, long maxBytes) throws IOException, MalformedRecordException {
    boolean gzip = InputFormat.isGzip(path.getName());
    if (!gzip && !FileSystem.get(path.toUri()).isDistributedFS() && "file".equals(path.toUri().getScheme())) {
      return new LocalCopy(new File(path.toUri()), false);
    }
    File tmp = Files.createTempFile("kiln-document-", suffix(path.getName())).toFile();
    boolean done = false;
    try (InputStream in = SourceStreams.open(path, 0); OutputStream out = Files.newOutputStream(tmp.toPath())) {
      byte[] buf = new byte[1 << 16];
      long copied = 0;
      for (int n; (n = in.read(buf)) > 0; ) {
        copied += n;
        if (copied > maxBytes) {
          throw new MalformedRecordException(QuarantineReason.TOO_LARGE,
              path + " is larger than ingest.max-spool-bytes (" + maxBytes + " bytes"
                  + (gzip ? " decompressed" : "") + ")");
        }
        out.write(buf, 0, n);
      }
      done = true;
    } catch (SourceStreams.DamagedStreamException e) {
      throw new MalformedRecordException(QuarantineReason.TRUNCATED_COMPRESSED,
          "decompression failed: " + e.getMessage());
    } finally {
      if (!done) {
        Files.deleteIfExists(tmp.toPath());
      }
    }
    return new LocalCopy(tmp, true);
  }

  File file() {
    return file;
  }

  private static String suffix(String name) {
    String n = InputFormat.isGzip(name) ? name.substring(0, name.length() - 3) : name;
    int dot = n.lastIndexOf('.');
    return dot < 0 ? "" : n.substring(dot);
  }

  @Override
  public void close() throws IOException {
    if (temporary) {
      Files.deleteIfExists(file.toPath());
    }
  }
}
