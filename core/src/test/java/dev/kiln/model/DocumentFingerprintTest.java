package dev.kiln.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What makes two documents "the same" for an incremental build, and what does not. */
class DocumentFingerprintTest {
  static final Document DOC = new Document("d1", "Title", "Body text.", Map.of("tenant", "a", "lang", "en"),
      "file:/corpus/a.jsonl", ContentType.TEXT, new float[] {0.6f, 0.8f});

  @Test
  void everyPartOfTheDocumentAndTheSettingsChangesIt() {
    byte[] base = DocumentFingerprint.of(DOC, "s");
    assertEquals(DocumentFingerprint.BYTES, base.length);
    List<byte[]> others = List.of(
        DocumentFingerprint.of(DOC, "s2"),
        DocumentFingerprint.of(with("d2", "Title", "Body text.", DOC.metadata(), ContentType.TEXT, DOC.vector()), "s"),
        DocumentFingerprint.of(with("d1", "Title!", "Body text.", DOC.metadata(), ContentType.TEXT, DOC.vector()), "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text!", DOC.metadata(), ContentType.TEXT, DOC.vector()), "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text.", Map.of("tenant", "b", "lang", "en"), ContentType.TEXT,
            DOC.vector()), "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text.", Map.of("tenant", "a"), ContentType.TEXT, DOC.vector()),
            "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text.", DOC.metadata(), ContentType.MARKDOWN, DOC.vector()),
            "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text.", DOC.metadata(), ContentType.TEXT,
            new float[] {0.8f, 0.6f}), "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text.", DOC.metadata(), ContentType.TEXT, null), "s"));
    for (byte[] other : others) {
      assertFalse(Arrays.equals(base, other));
    }
  }

  @Test
  void fieldBoundariesCannotBeShifted() {
    assertFalse(Arrays.equals(
        DocumentFingerprint.of(with("d1", "ab", "c", Map.of(), ContentType.TEXT, null), "s"),
        DocumentFingerprint.of(with("d1", "a", "bc", Map.of(), ContentType.TEXT, null), "s")));
    assertFalse(Arrays.equals(
        DocumentFingerprint.of(with("d1", "", "", Map.of("k", "v=w"), ContentType.TEXT, null), "s"),
        DocumentFingerprint.of(with("d1", "", "", Map.of("k=v", "w"), ContentType.TEXT, null), "s")));
  }

  @Test
  void whereTheRecordCameFromAndTheMetadataOrderDoNot() {
    Map<String, String> reversed = new LinkedHashMap<>();
    reversed.put("lang", "en");
    reversed.put("tenant", "a");
    Document moved = new Document("d1", "Title", "Body text.", reversed, "s3://other/b.jsonl", ContentType.TEXT,
        new float[] {0.6f, 0.8f});
    assertArrayEquals(DocumentFingerprint.of(DOC, "s"), DocumentFingerprint.of(moved, "s"));
    assertEquals(DocumentFingerprint.hex(DOC, "s"), DocumentFingerprint.hex(moved, "s"));
    assertArrayEquals(DocumentFingerprint.of(DOC, "s"), DocumentFingerprint.bytes(DocumentFingerprint.hex(DOC, "s")));
  }

  @Test
  void theRecordsProvenanceIsLeftOut() {
    Map<String, String> touched = new LinkedHashMap<>(DOC.metadata());
    touched.put(DocumentFingerprint.MODIFIED, "2026-12-04T08:00:00Z");
    touched.put(DocumentFingerprint.SOURCE_URI, "s3://exports/2026-12-04/part-0.jsonl");
    Map<String, String> earlier = new LinkedHashMap<>(DOC.metadata());
    earlier.put(DocumentFingerprint.MODIFIED, "2026-01-01T00:00:00Z");
    earlier.put(DocumentFingerprint.SOURCE_URI, "s3://exports/2026-01-01/part-7.jsonl");
    assertArrayEquals(DocumentFingerprint.of(with("d1", "Title", "Body text.", earlier, ContentType.TEXT, DOC.vector()), "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text.", touched, ContentType.TEXT, DOC.vector()), "s"));
    assertArrayEquals(DocumentFingerprint.of(DOC, "s"),
        DocumentFingerprint.of(with("d1", "Title", "Body text.", touched, ContentType.TEXT, DOC.vector()), "s"));
  }

  /**
   * Fingerprints are stored in every shard ({@code doc_fp}) and compared by the next build: the same
   * document must hash to the same bytes in every version, or an upgrade would rebuild everything.
   */
  @Test
  void fingerprintsAreStableAcrossVersions() {
    Map<String, String> meta = new java.util.HashMap<>(Map.of("tenant", "a", "lang", "en", "source_uri", "file:/x",
        "modified", "2026", "zeta", "\u00fcn\u00ef", "alpha", ""));
    Document d = new Document("d1", "Title", "Body text with \u00fcn\u00efc\u00f6d\u00e9 and \u4e2d\u6587.", meta,
        "file:/corpus/a.jsonl", ContentType.MARKDOWN, new float[] {0.6f, 0.8f, -0.0f, 1e-30f});
    assertEquals("a1b4bedb66a43c5a7412dc0bd7a9a060", DocumentFingerprint.hex(d, "settings|x"));
    Document plain = new Document("d2", "", "Plain.", Map.of(), "file:/c", ContentType.TEXT, null);
    assertEquals("a915bdd9429b0947a6bb07474c53a4f9", DocumentFingerprint.hex(plain, "s"));
    float[] nan = {Float.intBitsToFloat(0x7fc00001), 1f};
    float[] canonical = {Float.NaN, 1f};
    assertArrayEquals(DocumentFingerprint.of(with("d1", "T", "x", Map.of(), ContentType.TEXT, canonical), "s"),
        DocumentFingerprint.of(with("d1", "T", "x", Map.of(), ContentType.TEXT, nan), "s"), "every NaN hashes alike");
  }

  @Test
  void aHexFingerprintOfAnotherLengthIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> DocumentFingerprint.bytes("abcd"));
  }

  private static Document with(String id, String title, String text, Map<String, String> meta, ContentType type,
      float[] vector) {
    return new Document(id, title, text, meta, "file:/corpus/a.jsonl", type, vector);
  }
}
