package dev.kiln.vectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VectorFilesTest {
  @Test
  void rowsRoundTripWithTheModelInTheFooter(@TempDir Path tmp) throws IOException {
    Path file = tmp.resolve("embeddings").resolve(VectorFiles.partName(3));
    try (VectorFiles.Writer w = new VectorFiles.Writer(file, "sha256:abc", 3)) {
      w.write("k1", new float[] {0.1f, -0.2f, 0.3f});
      w.write("k2", new float[] {1f, 0f, Float.MIN_VALUE});
      assertEquals(2, w.rows());
    }
    assertEquals(List.of(file), VectorFiles.parts(tmp.resolve("embeddings")));
    assertEquals("part-00003.parquet", file.getFileName().toString());
    assertEquals("sha256:abc", VectorFiles.metadata(file).get(VectorFiles.META_FINGERPRINT));
    Map<String, float[]> read = new LinkedHashMap<>();
    VectorFiles.read(file, "sha256:abc", 3, read::put);
    assertEquals(List.of("k1", "k2"), List.copyOf(read.keySet()));
    assertArrayEquals(new float[] {0.1f, -0.2f, 0.3f}, read.get("k1"));
    assertArrayEquals(new float[] {1f, 0f, Float.MIN_VALUE}, read.get("k2"));
  }

  @Test
  void anotherModelsFileIsRefused(@TempDir Path tmp) throws IOException {
    Path file = tmp.resolve(VectorFiles.partName(0));
    try (VectorFiles.Writer w = new VectorFiles.Writer(file, "sha256:abc", 2)) {
      w.write("k", new float[] {1, 0});
      assertThrows(IllegalArgumentException.class, () -> w.write("bad", new float[] {1, 0, 0}));
    }
    IOException e = assertThrows(IOException.class, () -> VectorFiles.read(file, "sha256:xyz", 2, (k, v) -> {}));
    assertTrue(e.getMessage().contains("sha256:abc"), e.getMessage());
    assertThrows(IOException.class, () -> VectorFiles.read(file, "sha256:abc", 384, (k, v) -> {}));
  }
}
