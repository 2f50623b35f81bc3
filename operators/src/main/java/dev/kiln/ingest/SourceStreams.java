package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/** Opening corpus files on any Flink file system, and decoding their bytes. */
final class SourceStreams {
  private SourceStreams() {}

  /** Bytes inspected for NUL to tell a binary file from text. */
  static final int SNIFF_BYTES = 8192;

  /** Opens a file positioned at {@code offset}; {@code .gz} files are decompressed (from the start). */
  static InputStream open(Path path, long offset) throws IOException {
    FSDataInputStream in = FileSystem.get(path.toUri()).open(path);
    if (InputFormat.isGzip(path.getName())) {
      return new GZIPInputStream(in, 1 << 16);
    }
    if (offset > 0) {
      in.seek(offset);
    }
    return in;
  }

  static String decodeStrict(byte[] bytes, int off, int len) throws CharacterCodingException {
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes, off, len))
        .toString();
  }

  /** The first bytes of a record as text, bad sequences replaced, for the quarantine's prefix. */
  static String lenientPrefix(byte[] bytes, int off, int len) {
    int n = Math.min(len, 600);
    return new String(bytes, off, n, StandardCharsets.UTF_8).replace('\0', '\uFFFD');
  }

  /** Whether the bytes look binary: text files never contain NUL. */
  static boolean looksBinary(byte[] bytes, int len) {
    int n = Math.min(len, SNIFF_BYTES);
    for (int i = 0; i < n; i++) {
      if (bytes[i] == 0) {
        return true;
      }
    }
    return false;
  }
}
