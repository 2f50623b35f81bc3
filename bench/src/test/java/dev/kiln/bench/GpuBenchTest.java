package dev.kiln.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The quick CPU path of {@code scripts/gpu-bench.sh}: the JSON a GPU run prints, with CPU numbers. */
class GpuBenchTest {
  private static final String CORPUS = Path.of("..", "jobs", "src", "test", "resources", "fixture", "corpus.jsonl").toString();

  @Test
  void sweepsBatchSizesAndReportsChunksAndTokensPerSecondOnTheDeviceItRanOn() throws Exception {
    JsonNode r = GpuBench.run(Map.of("corpus", CORPUS, "chunks", "24", "device", "cpu", "batch-sizes", "1,4",
        "threads", "1"));
    assertEquals("cpu", r.get("device").asText());
    assertFalse(r.get("fell_back").asBoolean(), "cpu was asked for");
    assertFalse(r.get("device_name").asText().isBlank());
    assertEquals(24, r.get("chunks").asInt());
    assertEquals(List.of(1, 4), r.get("batch_sweep").findValues("batch_size").stream().map(JsonNode::asInt).toList());
    double tokensPerChunk = r.get("tokens").asDouble() / 24;
    assertTrue(tokensPerChunk > 5 && tokensPerChunk <= 512, r.toString());
    for (JsonNode row : r.get("batch_sweep")) {
      double chunksPerS = row.get("chunks_per_s").asDouble();
      assertTrue(chunksPerS > 0, row.toString());
      assertEquals(chunksPerS * tokensPerChunk, row.get("tokens_per_s").asDouble(), 0.02 * chunksPerS * tokensPerChunk + 0.1);
    }
    double best = Math.max(r.get("batch_sweep").get(0).get("chunks_per_s").asDouble(),
        r.get("batch_sweep").get(1).get("chunks_per_s").asDouble());
    assertEquals(best, r.get("chunks_per_s").asDouble(), 1e-9, "the headline is the best batch size");
  }

  @Test
  void aGpuRunOnAHostWithoutOneSaysItFellBack() throws Exception {
    JsonNode r = GpuBench.run(Map.of("corpus", CORPUS, "chunks", "4", "device", "gpu", "batch-sizes", "2"));
    // The CPU natives of the default build see no GPU: CPU numbers, flagged as such (a -Pgpu build on a GPU
    // host runs on it instead).
    assertEquals(r.get("device").asText().equals("cpu"), r.get("fell_back").asBoolean(), r.toString());
  }

  @Test
  void badOptionsNameTheOption() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GpuBench.run(Map.of("corpus", CORPUS, "batch-sizes", "8,x", "device", "cpu")));
    assertTrue(e.getMessage().contains("--batch-sizes"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> GpuBench.run(Map.of("corpus", CORPUS, "chunks", "0")));
    assertTrue(e.getMessage().contains("--chunks"), e.getMessage());
  }
}
