package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.util.List;

/**
 * The whole file is one record (Markdown, plain text, HTML: the document-per-file formats). At most the
 * record limit is read: a larger file is quarantined as {@code too_large} without being loaded, and a
 * file with NUL bytes in a text tree as {@code binary_file}, a {@code .gz} that ends early or is corrupt
 * as {@code truncated_compressed}. A leading UTF-8 byte-order mark is not part of the text.
 */
final class WholeFileReader implements BatchReader {
  private final String uri;
  private final InputFormat format;
  private final InputStream in;
  private final long modified;
  private final long fileSize;
  private final int maxBytes;
  private boolean done;

  /** @param fileSize the file's size on its file system (compressed size for {@code .gz}) */
  WholeFileReader(String uri, InputFormat format, InputStream in, long modified, long fileSize, int maxBytes) {
    this.uri = uri;
    this.format = format;
    this.in = in;
    this.modified = modified;
    this.fileSize = fileSize;
    this.maxBytes = maxBytes;
  }

  @Override
  public List<RawRecord> readBatch() throws IOException {
    if (done) {
      return List.of();
    }
    done = true;
    byte[] bytes;
    try {
      bytes = in.readNBytes(maxBytes + 1);
    } catch (SourceStreams.DamagedStreamException e) {
      // One document per file: a damaged file has no intact part worth indexing.
      return List.of(new RawRecord(uri, 0, format, "decompression failed: " + e.getMessage(),
          QuarantineReason.TRUNCATED_COMPRESSED).withSource(fileSize, modified));
    }
    int skip = SourceStreams.startsWithBom(bytes, bytes.length) ? SourceStreams.BOM.length : 0;
    RawRecord record;
    if (bytes.length > maxBytes) {
      record = new RawRecord(uri, 0, format, SourceStreams.lenientPrefix(bytes, 0, bytes.length),
          QuarantineReason.TOO_LARGE);
    } else if (SourceStreams.looksBinary(bytes, bytes.length)) {
      record = new RawRecord(uri, 0, format, SourceStreams.lenientPrefix(bytes, 0, Math.min(64, bytes.length)), QuarantineReason.BINARY_FILE);
    } else {
      try {
        record = RawRecord.of(uri, 0, format, SourceStreams.decodeStrict(bytes, skip, bytes.length - skip));
      } catch (CharacterCodingException e) {
        record = new RawRecord(uri, 0, format, SourceStreams.lenientPrefix(bytes, 0, bytes.length),
            QuarantineReason.INVALID_UTF8);
      }
    }
    return List.of(record.withSource(fileSize, modified));
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
