package dev.kiln.model;

import dev.kiln.snapshot.Checksums;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * What decides whether a document is unchanged since the base snapshot of an incremental build: the
 * first 128 bits of SHA-256 over the build settings that shape a document's chunks and index fields
 * and everything of the document that reaches them — id, title, text, metadata (in key order),
 * content type and a precomputed vector (its float bits). Where the record was read is not in it: not
 * its offset, nor the provenance metadata {@value #SOURCE_URI} and {@value #MODIFIED}, which change for
 * every record of a rewritten JSON-lines or Parquet file, or of a corpus exported under a new dated
 * prefix, when the record itself did not. An unchanged document keeps the provenance of the build that
 * last indexed its content. Every chunk carries its document's
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
    MessageDigest md = Checksums.newDigest();
    update(md, settings);
    update(md, doc.id());
    update(md, doc.title());
    update(md, doc.text());
    Map<String, String> metadata = new TreeMap<>(doc.metadata());
    metadata.remove(SOURCE_URI);
    metadata.remove(MODIFIED);
    md.update(ByteBuffer.allocate(4).putInt(metadata.size()).array());
    metadata.forEach((k, v) -> {
      update(md, k);
      update(md, v);
    });
    update(md, doc.contentType().name());
    float[] v = doc.vector();
    if (v == null) {
      md.update(ByteBuffer.allocate(4).putInt(-1).array());
    } else {
      ByteBuffer b = ByteBuffer.allocate(4 + 4 * v.length).order(ByteOrder.BIG_ENDIAN);
      b.putInt(v.length);
      for (float f : v) {
        b.putInt(Float.floatToIntBits(f));
      }
      md.update(b.array());
    }
    byte[] full = md.digest();
    byte[] out = new byte[BYTES];
    System.arraycopy(full, 0, out, 0, BYTES);
    return out;
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

  private static void update(MessageDigest md, String s) {
    byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
    md.update(new byte[] {(byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8), (byte) b.length});
    md.update(b);
  }
}
