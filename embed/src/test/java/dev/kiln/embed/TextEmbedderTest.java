package dev.kiln.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs the real bundled MiniLM model through ONNX Runtime. */
class TextEmbedderTest {
  private static TextEmbedder embedder;

  @BeforeAll
  static void load() {
    embedder = TextEmbedder.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL), 4, 1);
  }

  @AfterAll
  static void close() {
    embedder.close();
  }

  static double cos(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  /**
   * The reason CPU slots embed one text per call by default: with the int8 model's dynamic activation
   * quantisation, a padded batch changes a text's vector; one text per call makes it depend on the text
   * alone, so a rebuild at another parallelism or partitioning yields the same vectors.
   */
  @Test
  void oneTextPerCallMakesVectorsIndependentOfTheirNeighbours() {
    String text = "Snapshots are published by replacing CURRENT after the manifest is durable.";
    List<String> neighbours = List.of("a", text,
        "A much longer neighbour that pads every other text in its batch to its own length, which is "
            + "what a length-bucketed batch still does at its edges: shard writers, merges and manifests.");
    try (TextEmbedder single = TextEmbedder.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL), 1, 1)) {
      float[] alone = single.embed(List.of(text))[0];
      float[] amongOthers = single.embed(neighbours)[1];
      assertArrayEquals(alone, amongOthers);
      float[] batched = embedder.embed(neighbours)[1];
      assertTrue(cos(alone, batched) < 1 - 1e-6,
          "a padded int8 batch is expected to perturb the vector; if it no longer does, the CPU default "
              + "batch size of 1 (EmbedConfig.AUTO_CPU_BATCH) can be revisited");
    }
  }

  @Test
  void vectorsAreUnitLengthWithTheModelsDimension() {
    float[] v = embedder.embedQuery("how are snapshots published?");
    assertEquals(384, v.length);
    assertEquals(1.0, cos(v, v), 1e-4);
  }

  @Test
  void paraphrasesAreCloserThanUnrelatedText() {
    float[][] v = embedder.embedPassages(List.of(
        "The weather is lovely today.",
        "It is sunny and pleasant outside today.",
        "I like writing programs in Java."));
    assertTrue(cos(v[0], v[1]) > 0.7, "paraphrase cosine " + cos(v[0], v[1]));
    assertTrue(cos(v[0], v[2]) < 0.3, "unrelated cosine " + cos(v[0], v[2]));
  }

  @Test
  void batchingAndPaddingDoNotChangeVectors() {
    String longer = "A much longer sentence that forces every other text in the batch to be padded "
        + "with many padding tokens before inference runs.";
    float[][] batch = embedder.embedPassages(List.of("short text", longer, "another one"));
    float[] alone = embedder.embedPassages(List.of("short text"))[0];
    // The int8 model quantizes activations dynamically, with one scale per batch tensor, so padding
    // moves a vector a little; a broken attention mask would move it far more than this.
    assertTrue(cos(batch[0], alone) > 0.99, "cosine " + cos(batch[0], alone));
  }

  @Test
  void textsOverTheModelsMaximumAreTruncatedAndCounted() {
    long before = embedder.truncatedCount();
    embedder.embedPassages(List.of("word ".repeat(600)));
    assertEquals(before + 1, embedder.truncatedCount());
  }

  /**
   * A CPU slot with several intra-op threads parks its idle threads instead of spinning (they burned
   * cores other slots and stages need, docs/results/embedding.md); one thread has nothing to park and a
   * GPU session keeps ONNX Runtime's defaults.
   */
  @Test
  void cpuSlotsWithSeveralThreadsDoNotSpinAndGpuSessionsKeepTheDefaults() {
    assertEquals(Map.of("session.intra_op.allow_spinning", "0"), TextEmbedder.sessionConfig(2, EmbedDevice.CPU));
    assertEquals(Map.of(), TextEmbedder.sessionConfig(1, EmbedDevice.CPU));
    assertEquals(Map.of(), TextEmbedder.sessionConfig(4, new EmbedDevice(0, false, "test")));
  }

  /** The session options reach the real session: a two-thread slot loads and embeds as one thread does. */
  @Test
  void aTwoThreadSlotWithoutSpinningEmbedsLikeAOneThreadSlot() {
    String text = "Length-sorted batches pad each text only to its own batch's longest text.";
    try (TextEmbedder one = TextEmbedder.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL), 1, 1);
        TextEmbedder two = TextEmbedder.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL), 1, 2)) {
      float[] a = one.embedPassages(List.of(text))[0];
      float[] b = two.embedPassages(List.of(text))[0];
      assertEquals(384, b.length);
      // int8 products are exact; only the float reductions may be split differently over two threads.
      assertTrue(cos(a, b) > 1 - 1e-5, "cosine " + cos(a, b));
    }
  }
}
