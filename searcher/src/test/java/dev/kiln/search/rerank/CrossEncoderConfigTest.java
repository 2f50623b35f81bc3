package dev.kiln.search.rerank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cross-encoder's model.yaml: the embedders' kebab-case schema, and the old snake_case spelling. */
class CrossEncoderConfigTest {
  private static Path directory(Path tmp, String yaml, String... files) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("ce"));
    Files.writeString(dir.resolve("tokenizer.json"), "{}");
    for (String f : files) {
      Files.writeString(dir.resolve(f), "x");
    }
    Files.writeString(dir.resolve("model.yaml"), yaml);
    return dir;
  }

  @Test
  void kebabCaseAsEmbeddersWriteIt(@TempDir Path tmp) throws IOException {
    CrossEncoderConfig c = CrossEncoderConfig.read(directory(tmp, """
        model-file: scorer.pt
        max-tokens: 256
        batch-size: 4
        activation: sigmoid
        inputs: [input_ids, attention_mask]
        """, "scorer.pt"));
    assertEquals("scorer.pt", c.model);
    assertEquals(256, c.maxTokens);
    assertEquals(4, c.batchSize);
    assertEquals("sigmoid", c.activation);
    assertEquals(List.of("input_ids", "attention_mask"), c.inputs);
    assertEquals("PyTorch", c.engine());
  }

  @Test
  void theOldSnakeCaseSpellingStillReadsTheSame(@TempDir Path tmp) throws IOException {
    CrossEncoderConfig old = CrossEncoderConfig.read(directory(tmp.resolve("old"), """
        model: model.onnx
        max_tokens: 128
        batch_size: 8
        activation: none
        """, "model.onnx"));
    CrossEncoderConfig now = CrossEncoderConfig.read(directory(tmp.resolve("new"), """
        model-file: model.onnx
        max-tokens: 128
        batch-size: 8
        activation: none
        """, "model.onnx"));
    for (CrossEncoderConfig c : List.of(old, now)) {
      assertEquals("model.onnx", c.model);
      assertEquals(128, c.maxTokens);
      assertEquals(8, c.batchSize);
      assertEquals("OnnxRuntime", c.engine());
      assertEquals(List.of("input_ids", "attention_mask", "token_type_ids"), c.inputs);
    }
  }

  @Test
  void defaultsAndTheOneModelFileNeedNoKeys(@TempDir Path tmp) throws IOException {
    CrossEncoderConfig c = CrossEncoderConfig.read(directory(tmp, "{}\n", "ce.onnx"));
    assertEquals("ce.onnx", c.model);
    assertEquals(512, c.maxTokens);
    assertEquals(16, c.batchSize);
    assertEquals("none", c.activation);
  }

  @Test
  void mistakesNameTheKey(@TempDir Path tmp) throws IOException {
    assertError(tmp.resolve("a"), "model: m.onnx\nmodel-file: m.onnx\n", "'model' and 'model-file' are one key");
    assertError(tmp.resolve("b"), "model-file: m.onnx\npooling: mean\n", "'pooling' does not apply to a cross-encoder"
        + " (reranker DIR); its keys are [activation, batch-size, engine, inputs, max-tokens, model-file, name, tokenizer]");
    assertError(tmp.resolve("c"), "model-file: m.onnx\nbatch-size: 0\n", "'batch-size' must be >= 1");
    assertError(tmp.resolve("d"), "model-file: m.onnx\nmax_tokens: 1\n", "'max-tokens' must be >= 2");
    assertError(tmp.resolve("e"), "model-file: m.onnx\nactivation: relu\n", "'activation' must be none or sigmoid");
    assertError(tmp.resolve("f"), "model-file: m.onnx\nbatchsize: 2\n", "unknown key 'batchsize'");
    assertError(tmp.resolve("g"), "model-file: other.onnx\n", "'model-file' must name a file");
    assertError(tmp.resolve("h"), "model-file: m.onnx\ninputs: [pixels]\n", "'inputs' must list some of");
  }

  private static void assertError(Path tmp, String yaml, String expected) throws IOException {
    Path dir = directory(tmp, yaml, "m.onnx");
    ConfigException e = assertThrows(ConfigException.class, () -> CrossEncoderConfig.read(dir));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
