package dev.kiln.search.rerank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.kiln.embed.ModelFiles;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import dev.kiln.search.SnapshotFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WIRING TEST ONLY. No cross-encoder can be obtained here, so this runs the rerank stage with a
 * hand-built ONNX graph ({@link TinyOnnxModel}) that has a cross-encoder's inputs and output but
 * scores pairs by mean token id. It proves that the model directory is read, pairs are tokenized
 * together, batched, padded and masked correctly, scores come back in order and the searcher
 * reorders and cuts by them. It proves nothing about ranking quality.
 */
class CrossEncoderRerankerTest {
  @TempDir static Path modelDir;
  private static Path tokenizerFile;

  @BeforeAll
  static void writeModelDirectory() throws IOException {
    ModelSpec spec = ModelRegistry.resolve(SnapshotFixture.MODEL);
    tokenizerFile = modelDir.resolve("tokenizer.json");
    Files.copy(ModelFiles.materialize(spec, spec.tokenizerResource()), tokenizerFile);
    TinyOnnxModel.write(modelDir.resolve("model.onnx"));
    Files.writeString(modelDir.resolve("model.yaml"), """
        model-file: model.onnx
        max-tokens: 64
        batch-size: 2
        """);
  }

  private static double[] expected(String query, List<String> passages) throws IOException {
    try (HuggingFaceTokenizer t = HuggingFaceTokenizer.builder().optTokenizerPath(tokenizerFile)
        .optAddSpecialTokens(true).optTruncation(true).optMaxLength(64).build()) {
      double[] out = new double[passages.size()];
      for (int i = 0; i < out.length; i++) {
        Encoding e = t.encode(query, passages.get(i));
        out[i] = TinyOnnxModel.expectedScore(e.getIds(), e.getTypeIds());
      }
      return out;
    }
  }

  @Test
  void scoresEveryPairInOrderWhateverTheBatchPadding() throws IOException {
    String query = "how do volcanoes erupt";
    // Different lengths so that batches of two are padded, and one past max-tokens is truncated.
    List<String> passages = List.of("lava", "magma rises through the crust and erupts",
        "a b c", "word ".repeat(100), "pyroclastic flows are fast avalanches of hot gas");
    try (CrossEncoderReranker reranker = CrossEncoderReranker.open(modelDir)) {
      float[] scores = reranker.score(query, passages);
      double[] want = expected(query, passages);
      assertEquals(passages.size(), scores.length);
      for (int i = 0; i < want.length; i++) {
        assertEquals(want[i], scores[i], Math.abs(want[i]) * 1e-5, "pair " + i);
      }
      assertEquals(modelDir.getFileName().toString(), reranker.name());
    }
  }

  @Test
  void theSearcherReordersTopNByRerankScoreAndCutsToK(@TempDir Path root) throws IOException {
    try (TextEmbedder embedder = SnapshotFixture.openEmbedder()) {
      new SnapshotFixture(embedder).write(root);
    }
    String query = "hot rock and gas";
    SearchOptions options = SearchOptions.defaults().withReranker(modelDir, 6);
    try (Searcher plain = Searcher.open(root); Searcher reranked = Searcher.builder().root(root)
        .options(options).build()) {
      List<SearchHit> candidates = plain.search(query, SearchMode.HYBRID, 6).results();
      SearchResponse response = reranked.search(query, SearchMode.HYBRID, 3);
      double[] want = expected(query, candidates.stream().map(SearchHit::text).toList());
      List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5));
      order.sort(Comparator.comparingDouble((Integer i) -> -want[i]));
      assertEquals(3, response.results().size());
      for (int r = 0; r < 3; r++) {
        SearchHit hit = response.results().get(r);
        assertEquals(candidates.get(order.get(r)).chunkId(), hit.chunkId());
        assertEquals(want[order.get(r)], hit.score(), Math.abs(want[order.get(r)]) * 1e-5);
      }
    }
  }

  @Test
  void aDirectoryWithoutModelYamlIsAConfigurationError(@TempDir Path empty) {
    SettingException e = assertThrows(SettingException.class, () -> CrossEncoderReranker.open(empty));
    assertEquals(Setting.RERANKER, e.setting());
    assertTrue(e.getMessage().startsWith("reranker " + empty + " has no model.yaml"), e.getMessage());
  }
}
