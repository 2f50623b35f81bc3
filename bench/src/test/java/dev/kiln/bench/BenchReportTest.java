package dev.kiln.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchReportTest {
  private static final String JMH = """
      [
       {"benchmark": "dev.kiln.bench.AnnSearchBenchmark.kilnLuceneHnsw", "mode": "thrpt", "params": {"ef": "50"},
        "primaryMetric": {"score": 3000.0, "scoreUnit": "ops/s"}},
       {"benchmark": "dev.kiln.bench.AnnSearchBenchmark.rawHnswlib", "mode": "thrpt", "params": {"ef": "50"},
        "primaryMetric": {"score": 1500.0, "scoreUnit": "ops/s"}},
       {"benchmark": "dev.kiln.bench.AnnSearchBenchmark.kilnLuceneHnsw", "mode": "thrpt", "params": {"ef": "100"},
        "primaryMetric": {"score": 2000.0, "scoreUnit": "ops/s"}},
       {"benchmark": "dev.kiln.bench.AnnSearchBenchmark.rawHnswlib", "mode": "thrpt", "params": {"ef": "100"},
        "primaryMetric": {"score": 2500.0, "scoreUnit": "ops/s"}},
       {"benchmark": "dev.kiln.bench.Bm25Benchmark.kilnSearcherBm25", "mode": "avgt",
        "primaryMetric": {"score": 300.0, "scoreUnit": "us/op"}},
       {"benchmark": "dev.kiln.bench.Bm25Benchmark.rawLuceneBm25", "mode": "avgt",
        "primaryMetric": {"score": 200.0, "scoreUnit": "us/op"}}
      ]""";

  @Test
  void pairsKilnWithRawPerParamsAndOrientsRatiosSoAboveOneMeansKilnFaster() throws Exception {
    List<BenchReport.Pair> pairs = BenchReport.pairs(new ObjectMapper().readTree(JMH));
    assertEquals(3, pairs.size());
    assertEquals("ef=50", pairs.get(0).params());
    assertEquals(2.0, pairs.get(0).speedRatio(), 1e-9, "throughput: 3000 / 1500");
    assertEquals(0.8, pairs.get(1).speedRatio(), 1e-9, "throughput: 2000 / 2500");
    assertEquals(200.0 / 300.0, pairs.get(2).speedRatio(), 1e-9, "time per op: raw / kiln");
  }

  @Test
  void writesTablesChartsAndHtml(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("jmh.json"), JMH);
    Files.writeString(dir.resolve("ann-recall.json"), """
        {"snapshot": "s", "vectors": 10, "queries": 2,
         "rows": [{"ef": 50, "kiln_recall@10": 0.9, "hnswlib_recall@10": 0.8}]}""");
    BenchReport.main(new String[] {dir.toString()});
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("<td>AnnSearchBenchmark</td>"), html);
    assertTrue(html.contains("2.00×"), html);
    assertTrue(html.contains("ratios.png") && html.contains("recall.png"), html);
    byte[] png = Files.readAllBytes(dir.resolve("ratios.png"));
    assertEquals((byte) 0x89, png[0], "a PNG file");
    assertTrue(Files.readString(dir.resolve("report.md")).contains("| 50 | 0.9000 | 0.8000 |"));
  }
}
