package dev.kiln.model;

import dev.kiln.snapshot.Checksums;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;

/**
 * What decides whether a document is unchanged since the base snapshot of an incremental build: the
 * first 128 bits of SHA-256 over the build settings that shape a document's chunks and index fields
 * and everything of the document that reaches them — id, title, text, metadata (in key order),
 * content type and a precomputed vector (its float bits). Where the record was read is not in it: not
 * its offset, nor the provenance metadata {@value #SOURCE_URI} and {@value #MODIFIED}, which change for
 * every record of a rewritten JSON-lines or Parquet file, or of a corpus exported under a new dated
 * prefix, when the record itself did not. An unchanged document keeps the {@code modified} time of the
 * build that last indexed its content; its {@code source_uri} follows the record when it moves to
 * another file (the shard writer copies its chunks with the new file: {@code RelocatedChunks}). Every
 * chunk carries its document's
 * fingerprint into the shard ({@code doc_fp}), so the next build reads the set back from the index.
 *
 * <p>128 bits: two different documents share a fingerprint with probability about n² / 2¹²⁹, nil for
 * any corpus; a writer of the corpus who wanted a stale copy kept would have to find a SHA-256
 * collision of the same document id.
 */
public final class DocumentFingerprint {
  /** Provenance metadata left out ({@code MetadataExtractor} writes it): the record's file... */
  public static final String SOURCE_URI = "source_uri";
  /** ... and that file's modification time. */
  public static final String MODIFIED = "modified";

  /** Bytes of a fingerprint. */
  public static final int BYTES = 16;

  private DocumentFingerprint() {}

  /**
   * @param settings a fingerprint of the build settings (chunker, tokenizer, model, analyzer, range
   *     fields): a document fingerprinted under other settings is never "unchanged"
   */
  public static byte[] of(Document doc, String settings) {
    return ofUtf8Text(settings, doc.id(), doc.title(), doc.text().getBytes(StandardCharsets.UTF_8), doc.metadata(),
        doc.contentType(), doc.vector());
  }

  /**
   * As {@link #of(Document, String)} for the parts of a document not built yet, its text given as the
   * UTF-8 bytes it was read as: a reader that has the bytes need not decode the text to fingerprint it.
   *
   * @param textUtf8 exactly the UTF-8 encoding of the document's text (well-formed UTF-8: a malformed
   *     sequence decodes to U+FFFD, and then the fingerprint is of the decoded text's encoding)
   */
  public static byte[] ofUtf8Text(String settings, String id, String title, byte[] textUtf8,
      Map<String, String> metadata, ContentType contentType, float[] v) {
    // Called for every record of an incremental build (a million a rebuild): one digest and one
    // scratch buffer per thread, the metadata keys sorted in an array, the numbers written into the
    // scratch buffer — the same bytes as the definition above, without a digest lookup, a sorted map
    // and a buffer allocated per number.
    Scratch s = SCRATCH.get();
    s.reset();
    s.string(settings);
    s.string(id);
    s.string(title);
    s.utf8(textUtf8);
    String[] keys = new String[metadata.size()];
    int n = 0;
    for (String k : metadata.keySet()) {
      if (!SOURCE_URI.equals(k) && !MODIFIED.equals(k)) {
        keys[n++] = k;
      }
    }
    Arrays.sort(keys, 0, n);
    s.integer(n);
    for (int i = 0; i < n; i++) {
      s.string(keys[i]);
      s.string(metadata.get(keys[i]));
    }
    s.string(contentType.name());
    if (v == null) {
      s.integer(-1);
    } else {
      s.integer(v.length);
      s.floats(v);
    }
    byte[] full = s.digest();
    byte[] out = new byte[BYTES];
    System.arraycopy(full, 0, out, 0, BYTES);
    return out;
  }

  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
  private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  /**
   * A thread's digest and a buffer the bytes gather in before they reach it: a digest update costs a
   * call chain whatever its length, and a document is a dozen small numbers and strings.
   */
  private static final class Scratch {
    final MessageDigest digest = Checksums.newDigest();
    final byte[] buffer = new byte[8192];
    int size;

    void reset() {
      digest.reset();
      size = 0;
    }

    byte[] digest() {
      flush();
      return digest.digest();
    }

    private void flush() {
      digest.update(buffer, 0, size);
      size = 0;
    }

    private void room(int bytes) {
      if (size + bytes > buffer.length) {
        flush();
      }
    }

    void integer(int value) {
      room(4);
      INT_BE.set(buffer, size, value);
      size += 4;
    }

    void string(String value) {
      utf8((value == null ? "" : value).getBytes(StandardCharsets.UTF_8));
    }

    /** A string's UTF-8 bytes, after their length. */
    void utf8(byte[] b) {
      integer(b.length);
      if (b.length > buffer.length / 2) {
        flush();
        digest.update(b);
      } else {
        room(b.length);
        System.arraycopy(b, 0, buffer, size, b.length);
        size += b.length;
      }
    }

    /** Each float's bits, NaN canonical ({@link Float#floatToIntBits}), big-endian. */
    void floats(float[] v) {
      for (float f : v) {
        room(4);
        INT_BE.set(buffer, size, Float.floatToIntBits(f));
        size += 4;
      }
    }
  }

  /** As {@link #of}, as the 32 hex digits chunks carry. */
  public static String hex(Document doc, String settings) {
    return HexFormat.of().formatHex(of(doc, settings));
  }

  /** The bytes of a hex fingerprint ({@link Chunk#docFingerprint}). */
  public static byte[] bytes(String hex) {
    byte[] b = HexFormat.of().parseHex(hex);
    if (b.length != BYTES) {
      throw new IllegalArgumentException("a document fingerprint has " + BYTES + " bytes, not " + b.length);
    }
    return b;
  }
}
