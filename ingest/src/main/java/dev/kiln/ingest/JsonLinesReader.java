package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.util.ArrayList;
import java.util.List;

/**
 * One record per line of a JSON-lines file (or split of one). A split {@code [start, end)} owns the
 * lines that begin inside it: it skips the partial line it starts in and reads past {@code end} to
 * finish its last line. Offsets are byte offsets, so a quarantined line can be found again. A
 * {@code .gz} file that ends early or is corrupt gives its complete lines, then one {@code
 * truncated_compressed} record for the damaged tail.
 */
final class JsonLinesReader implements BatchReader {
  private final String uri;
  private final InputStream in;
  private final LineScanner lines;
  private final long end;
  private final long modified;
  private boolean done;

  JsonLinesReader(String uri, InputStream in, long start, long end, long modified, int maxBytes)
      throws IOException {
    this.uri = uri;
    this.in = in;
    this.end = end;
    this.modified = modified;
    // Start one byte early: if that byte ends a line, the line at 'start' is ours.
    this.lines = new LineScanner(in, Math.max(0, start - 1), maxBytes);
    if (start > 0) {
      lines.skipPartialLine();
    }
  }

  @Override
  public List<RawRecord> readBatch() throws IOException {
    if (done) {
      return List.of();
    }
    List<RawRecord> batch = new ArrayList<>(SIZE);
    while (batch.size() < SIZE) {
      try {
        if (lines.position() >= end || !lines.next()) {
          done = true;
          break;
        }
      } catch (SourceStreams.DamagedStreamException e) {
        done = true;
        batch.add(damagedTail(e));
        break;
      }
      int len = lines.length();
      byte[] bytes = lines.bytes();
      if (isBlank(bytes, len)) {
        continue;
      }
      batch.add(record(bytes, len).withSource(lines.lineBytes(), modified));
    }
    return batch;
  }

  private RawRecord record(byte[] bytes, int len) {
    long offset = lines.lineStart();
    if (lines.tooLong()) {
      return new RawRecord(uri, offset, InputFormat.JSONL, SourceStreams.lenientPrefix(bytes, 0, len),
          QuarantineReason.TOO_LARGE);
    }
    try {
      return RawRecord.of(uri, offset, InputFormat.JSONL, SourceStreams.decodeStrict(bytes, 0, len));
    } catch (CharacterCodingException e) {
      return new RawRecord(uri, offset, InputFormat.JSONL, SourceStreams.lenientPrefix(bytes, 0, len),
          QuarantineReason.INVALID_UTF8);
    }
  }

  /** The line the damage cut short, with what of it was decompressed, as one quarantine record. */
  private RawRecord damagedTail(SourceStreams.DamagedStreamException e) {
    String partial = SourceStreams.lenientPrefix(lines.bytes(), 0, Math.min(lines.length(), 200));
    return new RawRecord(uri, lines.lineStart(), InputFormat.JSONL,
        "decompression failed after byte " + lines.position() + " (" + e.getMessage() + "): " + partial,
        QuarantineReason.TRUNCATED_COMPRESSED).withSource(lines.position() - lines.lineStart(), modified);
  }

  private static boolean isBlank(byte[] bytes, int len) {
    for (int i = 0; i < len; i++) {
      if (bytes[i] != ' ' && bytes[i] != '\t' && bytes[i] != '\r') {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
