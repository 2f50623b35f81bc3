package dev.kiln.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PyTorch engine path: the TorchScript copy of all-MiniLM-L6-v2 in {@code shared/models}, selected
 * as a custom model directory, must give the same vectors as the fp32 ONNX model through ONNX Runtime.
 */
class TorchScriptModelTest {
  static final List<String> TEXTS = List.of(
      "The weather is lovely today.",
      "It is sunny and pleasant outside today.",
      "I like writing programs in Java.",
      "Snapshots are published by atomically replacing the CURRENT pointer after the manifest is written.",
      "短い");

  /** The shared directory is read-only and has no model.yaml: link its files next to one. */
  static Path torchScriptModelDir(Path tmp) throws IOException {
    Path src = SharedData.require("models/all-MiniLM-L6-v2-torchscript");
    Path dir = Files.createDirectories(tmp.resolve("minilm-torchscript"));
    Files.createSymbolicLink(dir.resolve("all-MiniLM-L6-v2.pt"), src.resolve("all-MiniLM-L6-v2.pt"));
    Files.createSymbolicLink(dir.resolve("tokenizer.json"), src.resolve("tokenizer.json"));
    Files.writeString(dir.resolve("model.yaml"), """
        name: minilm-torchscript
        dimension: 384
        pooling: mean
        normalize: true
        max-tokens: 256
        """);
    return dir;
  }

  @Test
  void torchScriptMatchesTheFp32OnnxModel(@TempDir Path tmp) throws IOException {
    ModelSpec ts = ModelRegistry.resolve(torchScriptModelDir(tmp).toString());
    assertEquals(ModelEngine.PYTORCH, ts.engine());
    float[][] torch;
    try (TextEmbedder e = TextEmbedder.open(ts, 4, 1)) {
      torch = e.embedPassages(TEXTS);
    }
    float[][] onnx;
    try (TextEmbedder e = TextEmbedder.open(ModelRegistry.resolve("all-minilm-l6-v2"), 4, 1)) {
      onnx = e.embedPassages(TEXTS);
    }
    for (int i = 0; i < TEXTS.size(); i++) {
      double c = TextEmbedderTest.cos(torch[i], onnx[i]);
      assertTrue(c >= 0.999, "text " + i + ": cosine " + c);
    }
    // and the vectors are not trivially equal to one another
    assertTrue(TextEmbedderTest.cos(torch[0], torch[2]) < 0.5);
  }

  @Test
  void fingerprintsDifferByEngineAndFile(@TempDir Path tmp) throws IOException {
    String ts = ModelFiles.fingerprint(ModelRegistry.resolve(torchScriptModelDir(tmp).toString()));
    String fp32 = ModelFiles.fingerprint(ModelRegistry.resolve("all-minilm-l6-v2"));
    String q = ModelFiles.fingerprint(ModelRegistry.resolve("all-minilm-l6-v2-q"));
    assertTrue(ts.startsWith("sha256:"));
    assertEquals(3, Set.of(ts, fp32, q).size());
    assertEquals(q, ModelFiles.fingerprint(ModelRegistry.resolve("all-minilm-l6-v2-q")));
  }
}
