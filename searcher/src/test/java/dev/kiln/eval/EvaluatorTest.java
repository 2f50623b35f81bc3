package dev.kiln.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.search.SnapshotFixture;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Evaluates the {@link SnapshotFixture} corpus against hand-made judgments. */
class EvaluatorTest {
  private static final double EPS = 1e-12;

  @TempDir static Path root;
  private static TextEmbedder embedder;
  private static String snapshotId;
  private static Searcher searcher;

  // q1..q3 are judged and have text; q4 is judged but has no text; q5 has text but no judgments.
  private static final String QUERIES = """
      {"_id": "q1", "text": "pyroclastic avalanches"}
      {"_id": "q2", "text": "commits"}
      {"_id": "q3", "text": "hot"}
      {"_id": "q5", "text": "chess"}
      """;
  private static final String QRELS = """
      query-id\tcorpus-id\tscore
      q1\tvolcano\t2
      q1\twhale\t0
      q2\tgit\t1
      q2\tchess\t1
      q3\tbread\t1
      q4\tmarathon\t1
      """;

  @BeforeAll
  static void buildSnapshot() throws IOException {
    embedder = SnapshotFixture.openEmbedder();
    snapshotId = new SnapshotFixture(embedder).write(root);
    searcher = Searcher.open(root);
  }

  @AfterAll
  static void close() throws IOException {
    searcher.close();
    embedder.close();
  }

  private static EvalReport evaluate(SearchMode mode) throws IOException {
    return new Evaluator(searcher).evaluate(
        Queries.parse(new StringReader(QUERIES), "queries"),
        Qrels.parse(new StringReader(QRELS), "qrels"),
        mode);
  }

  private static List<String> bm25Docs(String query) {
    return DocumentRanking.fromChunks(searcher.bm25(query, 1000), 100);
  }

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }

  @Test
  void bm25MetricsByHand() throws IOException {
    // The document rankings BM25 gives, checked first so the arithmetic below rests on them:
    //   q1 "pyroclastic avalanches" → only volcano#1 has the words          → [volcano]
    //   q2 "commits" → git#0 and git#1 (stem "commit"), folded to one doc   → [git]
    //   q3 "hot" → volcano#1 (shorter chunk) above bread#0                  → [volcano, bread]
    assertEquals(List.of("volcano"), bm25Docs("pyroclastic avalanches"));
    assertEquals(List.of("git"), bm25Docs("commits"));
    assertEquals(List.of("volcano", "bread"), bm25Docs("hot"));

    EvalReport report = evaluate(SearchMode.BM25);
    assertEquals(snapshotId, report.snapshot());
    assertEquals(SearchMode.BM25, report.mode());
    assertEquals(3, report.queries());
    // nDCG@10:
    //   q1: DCG = 2/log2(2) = 2, IDCG = 2 (whale's 0 adds nothing)        → 1
    //   q2: DCG = 1/log2(2) = 1, IDCG = 1 + 1/log2(3) = 1.6309298          → 0.6131472
    //   q3: DCG = 1/log2(3) = 0.6309298, IDCG = 1                          → 0.6309298
    double ndcg = (1 + 1 / (1 + 1 / log2(3)) + 1 / log2(3)) / 3;
    assertEquals(ndcg, report.ndcg10(), EPS);
    // recall@100: q1 1/1, q2 1/2 (chess never retrieved), q3 1/1.
    assertEquals((1 + 0.5 + 1) / 3, report.recall100(), EPS);
    // MRR@10: q1 1/1, q2 1/1, q3 1/2.
    assertEquals((1 + 1 + 0.5) / 3, report.mrr10(), EPS);
    // Hit@10: every query has a relevant document in its top 10.
    assertEquals(1.0, report.hit10(), EPS);
    assertEquals(Aggregation.MAX, report.aggregation());
  }

  @Test
  void runFileListsEveryQuerysDocumentsInTrecFormat(@TempDir Path dir)
      throws IOException {
    Path run = dir.resolve("bm25.run");
    new Evaluator(searcher).runFile(run, "kiln bm25").evaluate(
        Queries.parse(new StringReader(QUERIES), "queries"), Qrels.parse(new StringReader(QRELS), "qrels"),
        SearchMode.BM25);
    List<String> lines = Files.readAllLines(run);
    // q1 → [volcano], q2 → [git], q3 → [volcano, bread] (as asserted in bm25MetricsByHand).
    assertEquals(4, lines.size(), lines.toString());
    String[] first = lines.get(0).split(" ");
    assertEquals(6, first.length);
    assertEquals("Q0", first[1]);
    assertEquals("1", first[3]);
    assertEquals("kiln_bm25", first[5]);
    assertTrue(lines.stream().anyMatch(l -> l.matches("\\S+ Q0 bread 2 [0-9.]+ kiln_bm25")), lines.toString());
  }

  @Test
  void denseRetrievesTheWholeSmallCorpusSoRecallIsOne() throws IOException {
    // 1000 chunks are asked for and the corpus has 8, so every judged document is retrieved.
    EvalReport report = evaluate(SearchMode.DENSE);
    assertEquals(3, report.queries());
    assertEquals(1.0, report.recall100(), EPS);
    assertTrue(report.ndcg10() > 0 && report.ndcg10() <= 1, report.toString());
    assertTrue(report.mrr10() > 0 && report.mrr10() <= 1, report.toString());
  }

  @Test
  void chunksFoldIntoDocumentsAtTheirBestRank() {
    List<SearchHit> hits = new ArrayList<>();
    for (String chunk : List.of("a#0", "b#1", "a#1", "c#0", "b#0")) {
      hits.add(new SearchHit(chunk, chunk.substring(0, 1), 1, "", "", Map.of()));
    }
    assertEquals(List.of("a", "b", "c"), DocumentRanking.fromChunks(hits, 100));
    assertEquals(List.of("a", "b"), DocumentRanking.fromChunks(hits, 2));
  }

  @Test
  void sumAggregationRewardsDocumentsMatchedInSeveralChunks() {
    // a: one chunk scoring 3; b: two chunks scoring 2 + 2. MAX ranks a first (3 > 2), SUM ranks b
    // first (4 > 3); c keeps its single score 1 either way.
    List<SearchHit> hits = List.of(
        new SearchHit("a#0", "a", 3, "", "", Map.of()),
        new SearchHit("b#0", "b", 2, "", "", Map.of()),
        new SearchHit("b#1", "b", 2, "", "", Map.of()),
        new SearchHit("c#0", "c", 1, "", "", Map.of()));
    assertEquals(List.of("a", "b", "c"), DocumentRanking.aggregate(hits, 10, Aggregation.MAX).stream()
        .map(DocumentRanking.ScoredDoc::docId).toList());
    List<DocumentRanking.ScoredDoc> sum = DocumentRanking.aggregate(hits, 10, Aggregation.SUM);
    assertEquals(List.of("b", "a", "c"), sum.stream().map(DocumentRanking.ScoredDoc::docId).toList());
    assertEquals(4.0, sum.get(0).score(), EPS);
    assertEquals(2, DocumentRanking.aggregate(hits, 2, Aggregation.SUM).size());
  }

  @Test
  void reportJsonHasTheAgreedKeys() throws IOException {
    EvalReport report = new EvalReport("20250101T000000Z-abcdef", SearchMode.HYBRID, 7, 0.5, 0.75, 0.25);
    JsonNode json = new ObjectMapper().readTree(report.toJson());
    List<String> keys = new ArrayList<>();
    json.fieldNames().forEachRemaining(keys::add);
    assertEquals(List.of("snapshot", "mode", "queries", "ndcg@10", "recall@100", "mrr@10", "hit@10", "aggregation",
        "answered", "abstained", "unjudged", "unjudged_abstained"), keys);
    assertEquals(7, json.get("answered").asInt(), "a report built without abstentions answered every query");
    assertEquals(0, json.get("abstained").asInt());
    assertEquals("max", json.get("aggregation").asText());
    assertEquals("hybrid", json.get("mode").asText());
    assertEquals(0.75, json.get("recall@100").asDouble());
    assertEquals(report, EvalReport.fromJson(report.toJson()));
  }

  @Test
  void depthBelowTheRecallCutoffIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> new Evaluator(searcher, 10));
  }
}
