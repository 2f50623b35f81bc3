package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;

/**
 * A corpus file as a local {@link File}, which the PDF and Office libraries need for random access
 * without loading the file into memory. An uncompressed file on the local file system is used in place;
 * any other (a {@code .gz}, or a file on S3 or HDFS) is copied through its {@link SourceFile} to a
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
  static LocalCopy of(SourceFile source, long maxBytes) throws IOException, MalformedRecordException {
    boolean gzip = InputFormat.isGzip(source.name());
    File local = gzip ? null : source.localFile();
    if (local != null) {
      return new LocalCopy(local, false);
    }
    File tmp = Files.createTempFile("kiln-document-", suffix(source.name())).toFile();
    boolean done = false;
    try (InputStream in = SourceStreams.open(source, 0); OutputStream out = Files.newOutputStream(tmp.toPath())) {
      byte[] buf = new byte[1 << 16];
      long copied = 0;
      for (int n; (n = in.read(buf)) > 0; ) {
        copied += n;
        if (copied > maxBytes) {
          throw new MalformedRecordException(QuarantineReason.TOO_LARGE,
              source.uri() + " is larger than ingest.max-spool-bytes (" + maxBytes + " bytes"
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
