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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelDirectoryTest {
  private static Path dir(Path tmp, String yaml, String... files) throws IOException {
    Path d = Files.createDirectories(tmp.resolve("m"));
    for (String f : files) {
      Files.writeString(d.resolve(f), "x");
    }
    if (yaml != null) {
      Files.writeString(d.resolve("model.yaml"), yaml);
    }
    return d;
  }

  @Test
  void readsEveryField(@TempDir Path tmp) throws IOException {
    Path d = dir(tmp, """
        name: e5-custom
        dimension: 768
        pooling: cls
        normalize: false
        max-tokens: 512
        query-prefix: "query: "
        passage-prefix: "passage: "
        inputs: [input_ids, attention_mask]
        """, "model.onnx", "tokenizer.json");
    ModelSpec s = ModelRegistry.resolve(d.toString());
    assertEquals("e5-custom", s.name());
    assertEquals(768, s.dimension());
    assertEquals(Pooling.CLS, s.pooling());
    assertEquals(false, s.normalize());
    assertEquals(512, s.maxTokens());
    assertEquals("query: ", s.queryPrefix());
    assertEquals("passage: ", s.passagePrefix());
    assertEquals(ModelEngine.ONNX, s.engine());
    assertEquals("model.onnx", s.modelResource());
    assertEquals(d.toAbsolutePath().normalize().toString(), s.source());
  }

  @Test
  void engineFollowsTheFileExtension(@TempDir Path tmp) throws IOException {
    Path d = dir(tmp, "dimension: 8\nmax-tokens: 16\n", "enc.pt", "tokenizer.json");
    ModelSpec s = ModelRegistry.resolve(d.toString());
    assertEquals(ModelEngine.PYTORCH, s.engine());
    assertEquals("m", s.name());
    assertNull(s.inputs());
  }

  @Test
  void badDescriptorsNameWhatToFix(@TempDir Path tmp) throws IOException {
    Path d = dir(tmp, "dimension: 8\nmax-tokens: 16\npoolin: mean\n", "a.onnx", "tokenizer.json");
    ConfigException e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve(d.toString()));
    assertTrue(e.getMessage().contains("poolin"), e.getMessage());
    Files.writeString(d.resolve("model.yaml"), "max-tokens: 16\n");
    e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve(d.toString()));
    assertTrue(e.getMessage().contains("dimension"), e.getMessage());
    Files.writeString(d.resolve("b.pt"), "x");
    Files.writeString(d.resolve("model.yaml"), "dimension: 8\nmax-tokens: 16\n");
    e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve(d.toString()));
    assertTrue(e.getMessage().contains("model-file"), e.getMessage());
  }

  @Test
  void chunkSizeAndOverlapAreReadAndOptional(@TempDir Path tmp) throws IOException {
    Path d = dir(tmp, "dimension: 8\nmax-tokens: 512\nchunk-size: 480\nchunk-overlap: 64\n", "a.onnx", "tokenizer.json");
    ModelSpec s = ModelRegistry.resolve(d.toString());
    assertEquals(480, s.chunkSize());
    assertEquals(64, s.chunkOverlap());
    Files.writeString(d.resolve("model.yaml"), "dimension: 8\nmax-tokens: 512\nchunk-size: 300\n");
    s = ModelRegistry.resolve(d.toString());
    assertEquals(300, s.chunkSize());
    assertNull(s.chunkOverlap(), "no overlap: the generic one applies");
    Files.writeString(d.resolve("model.yaml"), "dimension: 8\nmax-tokens: 512\n");
    s = ModelRegistry.resolve(d.toString());
    assertNull(s.chunkSize(), "no recommendation: chunker.size auto takes the generic default");
    assertNull(s.chunkOverlap());
  }

  @Test
  void badChunkRecommendationsNameTheKey(@TempDir Path tmp) throws IOException {
    Path d = dir(tmp, "dimension: 8\nmax-tokens: 256\nchunk-size: 480\n", "a.onnx", "tokenizer.json");
    ConfigException e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve(d.toString()));
    assertTrue(e.getMessage().contains("'chunk-size' must be at least 8 and at most max-tokens (256)"), e.getMessage());
    Files.writeString(d.resolve("model.yaml"), "dimension: 8\nmax-tokens: 256\nchunk-overlap: 16\n");
    e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve(d.toString()));
    assertTrue(e.getMessage().contains("'chunk-overlap' needs 'chunk-size'"), e.getMessage());
    Files.writeString(d.resolve("model.yaml"), "dimension: 8\nmax-tokens: 256\nchunk-size: 100\nchunk-overlap: 100\n");
    e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve(d.toString()));
    assertTrue(e.getMessage().contains("'chunk-overlap' must be >= 0 and < chunk-size (100)"), e.getMessage());
    Files.writeString(d.resolve("model.yaml"), "dimension: 8\nmax-tokens: 256\nchunk-size: many\n");
    e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve(d.toString()));
    assertTrue(e.getMessage().contains("'chunk-size'"), e.getMessage());
  }

  @Test
  void bundledModelsRecommendOnlyMeasuredChunkSizes() {
    ModelSpec bge = ModelRegistry.resolve("bge-small-en-v15-q");
    assertEquals(480, bge.chunkSize());
    assertEquals(64, bge.chunkOverlap());
    assertTrue(bge.chunkSize() <= bge.maxTokens(), "a recommended chunk fits the model's input");
    for (String other : List.of("all-minilm-l6-v2-q", "all-minilm-l6-v2", "e5-small-v2-q", "bge-small-zh-v15-q")) {
      assertNull(ModelRegistry.resolve(other).chunkSize(), other + " keeps the generic default");
    }
  }

  @Test
  void unknownNamesListTheBundledModels() {
    ConfigException e = assertThrows(ConfigException.class, () -> ModelRegistry.resolve("no-such-model"));
    assertTrue(e.getMessage().contains("all-minilm-l6-v2-q") && e.getMessage().contains("model.yaml"), e.getMessage());
  }

  @Test
  void everyBundledModelHasPrefixesWhereItNeedsThem() {
    assertEquals("query: ", ModelRegistry.resolve("e5-small-v2-q").queryPrefix());
    assertEquals("passage: ", ModelRegistry.resolve("e5-small-v2-q").passagePrefix());
    assertTrue(ModelRegistry.resolve("bge-small-en-v15-q").queryPrefix().startsWith("Represent"));
    assertEquals(512, ModelRegistry.resolve("bge-small-zh-v15-q").dimension());
    assertEquals("int8", ModelRegistry.resolve("all-minilm-l6-v2-q").precision());
    assertEquals("fp32", ModelRegistry.resolve("all-minilm-l6-v2").precision());
  }
}
