package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.AutoTokens;
import dev.kiln.config.BuildConfig;
import dev.kiln.embed.ModelFiles;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A build left at {@code chunker.size: auto} with a model directory whose {@code model.yaml}
 * recommends 40/8 tokens cuts at 40/8 and says so: in the effective config it logs, in the manifest
 * and in the chunk count (each ~150-token document becomes several chunks, not the one the generic
 * 200 would make).
 */
class AutoChunkSizeITCase {
  @TempDir Path work;

  @Test
  void anAutoSizeBuildCutsAtTheModelsRecommendationAndRecordsIt() throws Exception {
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus().toString());
    config.snapshots = work.resolve("snapshots").toString();
    config.shards = 1;
    config.parallelism = 1;
    config.embed.model = modelRecommending(40, 8).toString();
    assertEquals(AutoTokens.AUTO, config.chunker.size, "the build is left at auto");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    SnapshotBuilder.BuildReport report = new SnapshotBuilder(config, new PrintStream(buf, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(1));
    String log = buf.toString(StandardCharsets.UTF_8);
    assertTrue(log.contains("+ chunker.size: 40") && log.contains("+ chunker.overlap: 8"), log);

    Manifest m = new SnapshotStore(work.resolve("snapshots")).open(report.snapshotId());
    assertEquals(40, m.chunker().size());
    assertEquals(8, m.chunker().overlap());
    assertEquals("minilm-40", m.model().name());
    assertEquals(3L, m.counters().get("documents"));
    assertTrue(m.totalChunks() >= 3 * 4, "~150-token documents in 40-token chunks: " + m.totalChunks());
  }

  private Path corpus() throws Exception {
    List<String> lines = new ArrayList<>();
    String[] topics = {"glaciers", "volcanoes", "tides"};
    for (String topic : topics) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 12; i++) {
        text.append("Sentence ").append(i).append(" about ").append(topic)
            .append(" describes how the slow processes of nature shape the land over many years. ");
      }
      lines.add("{\"_id\": \"" + topic + "\", \"title\": \"" + topic + "\", \"text\": \"" + text + "\"}");
    }
    return Files.write(work.resolve("corpus.jsonl"), lines);
  }

  /** The bundled MiniLM's files as a model directory whose model.yaml recommends a chunk size. */
  private Path modelRecommending(int size, int overlap) throws Exception {
    ModelSpec minilm = ModelRegistry.resolve("all-minilm-l6-v2-q");
    Path dir = Files.createDirectories(work.resolve("minilm-40"));
    Files.copy(ModelFiles.materialize(minilm, minilm.modelResource()), dir.resolve("model.onnx"));
    Files.copy(ModelFiles.materialize(minilm, minilm.tokenizerResource()), dir.resolve("tokenizer.json"));
    Files.writeString(dir.resolve("model.yaml"), "dimension: 384\npooling: mean\nnormalize: true\nmax-tokens: 256\n"
        + "chunk-size: " + size + "\nchunk-overlap: " + overlap + "\n");
    return dir;
  }
}
