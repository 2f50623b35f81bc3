package dev.kiln.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VectorEncodingTest {
  @TempDir Path dir;

  @Test
  void theYamlKeySetsTheEncodingAndAnUnknownOneNamesTheOption() throws Exception {
    Path f = dir.resolve("c.yaml");
    Files.writeString(f, "index:\n  vector-encoding: int4\n");
    BuildConfig c = BuildConfig.load(f).validate();
    assertEquals(VectorEncoding.INT4, VectorEncoding.parse(c.index.vectorEncoding));
    assertEquals("float32", new BuildConfig().index.vectorEncoding);
    assertTrue(c.describe().contains("+ index.vector-encoding: int4"), c.describe().toString());

    Files.writeString(f, "index:\n  vector-encoding: int3\n");
    ConfigException e = assertThrows(ConfigException.class, () -> BuildConfig.load(f).validate());
    assertEquals("index.vector-encoding (--vector-encoding) must be one of float32|int8|int4|binary, was 'int3'",
        e.getMessage());
    assertEquals(VectorEncoding.BINARY, VectorEncoding.parse("BINARY"));
    assertFalse(VectorEncoding.FLOAT32.quantized());
    assertTrue(VectorEncoding.INT8.quantized());
  }

  @Test
  void theManifestRecordsTheEncodingAndAnOldManifestMeansFloat32() throws Exception {
    Manifest.IndexInfo old = new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100, "smartcn");
    assertEquals(VectorEncoding.FLOAT32, old.encoding());
    // float32 is written as no key at all: readers that predate the key refuse unknown index keys.
    assertFalse(SnapshotStore.json().writeValueAsString(manifest(old)).contains("vector_encoding"));
    String json = SnapshotStore.json().writeValueAsString(manifest(
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100, "smartcn", "int8")));
    assertTrue(json.contains("\"vector_encoding\" : \"int8\""), json);
    assertEquals(VectorEncoding.INT8, SnapshotStore.json().readValue(json, Manifest.class).index().encoding());
    // A manifest written before the key existed reads as float32.
    String before = json.replace(",\n    \"vector_encoding\" : \"int8\"", "");
    assertFalse(before.contains("vector_encoding"), before);
    assertEquals(VectorEncoding.FLOAT32, SnapshotStore.json().readValue(before, Manifest.class).index().encoding());
  }

  private static Manifest manifest(Manifest.IndexInfo index) {
    return new Manifest(Manifest.FORMAT_VERSION, "20261203T120000Z-0000aa", "2026-12-03T12:00:00Z", null,
        new Manifest.ModelInfo("m", 16, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        index, Map.of(), List.of());
  }
}
