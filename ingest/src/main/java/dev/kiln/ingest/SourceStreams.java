package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;

/** Opening corpus files ({@link SourceFile}s), decompressing {@code .gz} ones, and decoding their bytes. */
final class SourceStreams {
  private SourceStreams() {}

  /** Bytes inspected for NUL to tell a binary file from text. */
  static final int SNIFF_BYTES = 8192;

  /** The UTF-8 byte-order mark some editors write at the start of a file; never part of the text. */
  static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /**
   * Opens a file positioned at {@code offset}; {@code .gz} files are decompressed (from the start).
   *
   * @throws DamagedStreamException when a {@code .gz} file has no valid gzip header
   * @throws IOException when the file cannot be opened at all
   */
  static InputStream open(SourceFile file, long offset) throws IOException {
    if (InputFormat.isGzip(file.name())) {
      return new Gunzip(file.open(0));
    }
    return file.open(offset);
  }

  /** Bytes {@code [0, len)} start with a UTF-8 byte-order mark. */
  static boolean startsWithBom(byte[] bytes, int len) {
    return len >= 3 && bytes[0] == BOM[0] && bytes[1] == BOM[1] && bytes[2] == BOM[2];
  }

  /**
   * The compressed data itself is truncated or corrupt, as opposed to the file system failing under
   * it: readers quarantine the damaged tail ({@code truncated_compressed}) and keep what came before.
   */
  static final class DamagedStreamException extends IOException {
    private static final long serialVersionUID = 1L;

    DamagedStreamException(IOException cause) {
      super(String.valueOf(cause.getMessage()), cause);
    }
  }

  /**
   * gzip decompression that tells damage in the data from failures of the stream below: an
   * exception the raw stream threw is passed on unchanged (the job fails and can be retried), any
   * other is a {@link DamagedStreamException}.
   */
  private static final class Gunzip extends FilterInputStream {
    private final Raw raw;

    Gunzip(InputStream source) throws IOException {
      this(new Raw(source));
    }

    private Gunzip(Raw raw) throws IOException {
      super(null);
      this.raw = raw;
      try {
        in = new GZIPInputStream(raw, 1 << 16);
      } catch (IOException e) {
        raw.close();
        throw classify(e);
      }
    }

    private IOException classify(IOException e) {
      return raw.failure != null ? e : new DamagedStreamException(e);
    }

    @Override
    public int read() throws IOException {
      try {
        return in.read();
      } catch (IOException e) {
        throw classify(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return in.read(b, off, len);
      } catch (IOException e) {
        throw classify(e);
      }
    }

    @Override
    public long skip(long n) throws IOException {
      try {
        return in.skip(n);
      } catch (IOException e) {
        throw classify(e);
      }
    }
  }

  /** The compressed bytes as read from the file system, remembering whether reading them failed. */
  private static final class Raw extends FilterInputStream {
    IOException failure;

    Raw(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      try {
        return in.read();
      } catch (IOException e) {
        failure = e;
        throw e;
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return in.read(b, off, len);
      } catch (IOException e) {
        failure = e;
        throw e;
      }
    }
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
