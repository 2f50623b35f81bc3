package dev.kiln.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A golden stored-vectors part of format version 1 ({@code golden/format-v1/part-00000.parquet}, the
 * part of the golden snapshot the searcher's format test opens): the current reader must read its
 * footer and every row unchanged, and must refuse it for another model.
 */
class StoredVectorsFormatV1Test {
  static final String FINGERPRINT = "sha256:e5b4909c6aa46c05dfb0a61a2aea41d790ff9cf87bd4bd06e4457e5e03cb0927";

  @TempDir Path dir;

  private Path golden() throws IOException {
    Path file = dir.resolve("part-00000.parquet");
    try (InputStream in = getClass().getResourceAsStream("/golden/format-v1/part-00000.parquet")) {
      Files.copy(in, file);
    }
    return file;
  }

  @Test
  void readsTheFooterOfAV1Part() throws IOException {
    Map<String, String> meta = VectorFiles.metadata(golden());
    assertEquals("1", meta.get(VectorFiles.META_FORMAT));
    assertEquals(FINGERPRINT, meta.get(VectorFiles.META_FINGERPRINT));
    assertEquals("384", meta.get(VectorFiles.META_DIMENSION));
  }

  @Test
  void readsEveryRowOfAV1Part() throws IOException {
    Map<String, float[]> rows = new TreeMap<>();
    VectorFiles.read(golden(), FINGERPRINT, 384, rows::put);
    assertEquals(6, rows.size(), "one row per distinct content key of the golden build");
    for (Map.Entry<String, float[]> e : rows.entrySet()) {
      assertTrue(e.getKey().matches("[0-9a-f]{64}"), "content key " + e.getKey());
      assertEquals(384, e.getValue().length);
      double norm = 0;
      for (float x : e.getValue()) {
        norm += x * x;
      }
      assertEquals(1.0, norm, 1e-4, "stored vectors are L2-normalised");
    }
    Map.Entry<String, float[]> first = rows.entrySet().iterator().next();
    assertEquals(GoldenValues.FIRST_KEY, first.getKey());
    assertEquals(GoldenValues.FIRST_COMPONENTS[0], first.getValue()[0], 0f);
    assertEquals(GoldenValues.FIRST_COMPONENTS[1], first.getValue()[1], 0f);
    assertEquals(GoldenValues.FIRST_COMPONENTS[2], first.getValue()[2], 0f);
  }

  @Test
  void refusesAV1PartForAnotherModel() throws IOException {
    Path file = golden();
    assertThrows(IOException.class, () -> VectorFiles.read(file, "sha256:other", 384, (k, v) -> { }));
    assertThrows(IOException.class, () -> VectorFiles.read(file, FINGERPRINT, 512, (k, v) -> { }));
  }

  /** Values decoded from the golden file when it was committed (the smallest key and its vector). */
  private static final class GoldenValues {
    static final String FIRST_KEY = "1cfb1e4ab1c2e6aa7e0ececb1ef75eda4278e4e8133a1aecaf73dd51e0e91379";
    static final float[] FIRST_COMPONENTS = {0.015391086f, 0.026479244f, -0.013468185f};
  }
}
