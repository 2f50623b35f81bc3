package dev.kiln.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one model.yaml schema: kebab-case keys, the old snake_case cross-encoder keys renamed with a warning. */
class ModelDescriptorTest {
  @TempDir Path tmp;

  private ModelDescriptor read(String yaml) throws IOException {
    return ModelDescriptor.read(Files.writeString(tmp.resolve("model.yaml"), yaml));
  }

  @Test
  void unsetKeysStayNullSoEachKindAppliesItsOwnDefaults() throws IOException {
    ModelDescriptor d = read("dimension: 384\nmax-tokens: 256\n");
    assertEquals(384, d.dimension);
    assertEquals(256, d.maxTokens);
    assertNull(d.pooling);
    assertNull(d.batchSize);
    assertEquals(Set.of("dimension", "max-tokens"), d.keys());
    assertEquals(List.of(), d.deprecated());
  }

  @Test
  void snakeCaseCrossEncoderKeysAreRenamedAndReported() throws IOException {
    ModelDescriptor d = read("model: ce.onnx\nmax_tokens: 128\nbatch_size: 8\nactivation: sigmoid\n");
    assertEquals("ce.onnx", d.modelFile);
    assertEquals(128, d.maxTokens);
    assertEquals(8, d.batchSize);
    assertEquals(Set.of("model-file", "max-tokens", "batch-size", "activation"), d.keys());
    assertEquals(List.of("model -> model-file", "max_tokens -> max-tokens", "batch_size -> batch-size"), d.deprecated());
  }

  @Test
  void bothSpellingsOfOneKeyUnknownKeysAndWrongTypesAreErrors() throws IOException {
    assertTrue(assertThrows(ConfigException.class, () -> read("max_tokens: 1\nmax-tokens: 2\n")).getMessage()
        .contains("'max_tokens' and 'max-tokens' are one key"));
    String unknown = assertThrows(ConfigException.class, () -> read("dimensions: 384\n")).getMessage();
    assertTrue(unknown.contains("unknown key 'dimensions'") && unknown.contains("dimension"), unknown);
    assertTrue(assertThrows(ConfigException.class, () -> read("dimension: many\n")).getMessage().contains("model.yaml"));
    assertTrue(assertThrows(ConfigException.class, () -> read("- a\n- b\n")).getMessage().contains("key: value"));
  }

  @Test
  void eachKindRefusesTheOthersKeys() throws IOException {
    ModelDescriptor d = read("dimension: 384\nmax-tokens: 256\nactivation: sigmoid\n");
    ConfigException e = assertThrows(ConfigException.class,
        () -> d.requireOnly(ModelDescriptor.EMBEDDING_KEYS, "an embedding model", tmp.resolve("model.yaml")));
    assertTrue(e.getMessage().contains("'activation' does not apply to an embedding model"), e.getMessage());
  }

  @Test
  void anEmbeddingModelDirectoryRefusesCrossEncoderKeys() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("m"));
    Files.writeString(dir.resolve("model.onnx"), "x");
    Files.writeString(dir.resolve("tokenizer.json"), "x");
    Files.writeString(dir.resolve("model.yaml"), "dimension: 8\nmax-tokens: 16\nbatch-size: 4\n");
    ConfigException e = assertThrows(ConfigException.class, () -> ModelDirectory.load(dir));
    assertTrue(e.getMessage().contains("'batch-size' does not apply to an embedding model"), e.getMessage());
    // The old spelling of max-tokens is read for embedders too: one schema, one reader.
    Files.writeString(dir.resolve("model.yaml"), "dimension: 8\nmax_tokens: 16\n");
    assertEquals(16, ModelDirectory.load(dir).maxTokens());
  }
}
