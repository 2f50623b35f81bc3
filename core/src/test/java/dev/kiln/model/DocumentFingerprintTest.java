package dev.kiln.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
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
    Map<String, String> meta = new HashMap<>(Map.of("tenant", "a", "lang", "en", "source_uri", "file:/x",
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

  /**
   * The fingerprint's definition written plainly (as the first version computed it), against the
   * implementation on random documents: ids, texts and metadata with non-ASCII and empty strings,
   * provenance keys, vectors of several lengths, none at all.
   */
  @Test
  void matchesItsPlainDefinitionOnRandomDocuments() throws Exception {
    Random random = new Random(7);
    String alphabet = "ab z\u00e9\u4e2d\ud83d\ude00=,\n";
    for (int round = 0; round < 2_000; round++) {
      Map<String, String> metadata = new LinkedHashMap<>();
      int keys = random.nextInt(5);
      for (int k = 0; k < keys; k++) {
        metadata.put(randomText(random, alphabet, 6), randomText(random, alphabet, 8));
      }
      if (random.nextBoolean()) {
        metadata.put(DocumentFingerprint.SOURCE_URI, "s3://b/" + round);
      }
      if (random.nextBoolean()) {
        metadata.put(DocumentFingerprint.MODIFIED, Integer.toString(round));
      }
      float[] vector = null;
      if (random.nextInt(3) > 0) {
        vector = new float[1 + random.nextInt(random.nextBoolean() ? 8 : 1_000)];
        for (int d = 0; d < vector.length; d++) {
          vector[d] = (float) random.nextGaussian();
        }
      }
      ContentType type = ContentType.values()[random.nextInt(ContentType.values().length)];
      Document doc = new Document("d" + randomText(random, alphabet, 10), randomText(random, alphabet, 12),
          randomText(random, alphabet, 6_000), metadata, "file:/c/" + round, type, vector);
      String settings = randomText(random, alphabet, 20);
      assertArrayEquals(plainDefinition(doc, settings), DocumentFingerprint.of(doc, settings), "document " + round);
      // a reader that has the text's UTF-8 bytes gets the same fingerprint from them
      assertArrayEquals(DocumentFingerprint.of(doc, settings), DocumentFingerprint.ofUtf8Text(settings, doc.id(),
          doc.title(), doc.text().getBytes(StandardCharsets.UTF_8), doc.metadata(),
          doc.contentType(), doc.vector()), "document " + round + " from its text's bytes");
    }
  }

  private static String randomText(Random random, String alphabet, int maxLength) {
    int n = random.nextInt(maxLength + 1);
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return b.toString();
  }

  private static byte[] plainDefinition(Document doc, String settings) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    Consumer<String> string = s -> {
      byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
      try {
        out.writeInt(b.length);
        out.write(b);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    string.accept(settings);
    string.accept(doc.id());
    string.accept(doc.title());
    string.accept(doc.text());
    TreeMap<String, String> metadata = new TreeMap<>(doc.metadata());
    metadata.remove(DocumentFingerprint.SOURCE_URI);
    metadata.remove(DocumentFingerprint.MODIFIED);
    out.writeInt(metadata.size());
    metadata.forEach((k, v) -> {
      string.accept(k);
      string.accept(v);
    });
    string.accept(doc.contentType().name());
    if (doc.vector() == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(doc.vector().length);
      for (float f : doc.vector()) {
        out.writeInt(Float.floatToIntBits(f));
      }
    }
    out.flush();
    return Arrays.copyOf(md.digest(bytes.toByteArray()), DocumentFingerprint.BYTES);
  }
}
