package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.index.ShardSchema;
import dev.kiln.route.ShardRouter;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walking skeleton end to end: the real build job on a Flink mini-cluster (parallelism 2, two
 * shards) over JSON lines and a Markdown tree, the real ONNX model, real Lucene shards, a published
 * snapshot, and searches against it.
 */
class BuildJobITCase {
  @TempDir static Path work;
  static Path root;
  static SnapshotBuilder.BuildReport report;
  static String output;

  @BeforeAll
  static void build() throws Exception {
    root = work.resolve("snapshots");
    Path fixture = Path.of(BuildJobITCase.class.getResource("/fixture").toURI());
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(fixture.resolve("corpus.jsonl").toString(), fixture.resolve("md").toString());
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    config.ingest.maxBadFraction = 0.5;   // the fixture holds 2 bad lines among 11 records on purpose
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    report = new SnapshotBuilder(config, new PrintStream(buf, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));
    output = buf.toString(StandardCharsets.UTF_8);
  }

  @Test
  void publishesAVerifiedSnapshotWithEveryShard() {
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(report.snapshotId(), store.currentId());
    Manifest m = store.open(report.snapshotId());
    assertEquals(2, m.shards().size());
    assertEquals("all-minilm-l6-v2-q", m.model().name());
    assertEquals(384, m.model().dimension());
    // 7 valid JSON documents + 2 Markdown files; 2 bad lines quarantined.
    assertEquals(9L, m.counters().get("documents"));
    assertEquals(2L, m.counters().get("quarantined"));
    assertEquals(2L, m.quarantine().total());
    assertEquals(Map.of("malformed_json", 1L, "missing_id", 1L), m.quarantine().byReason());
    assertEquals(m.counters().get("chunks"), m.totalChunks());
    assertTrue(m.totalChunks() > 9, "the 48-token window must split some documents: " + m.totalChunks());
    for (Manifest.ShardEntry s : m.shards()) {
      assertFalse(s.files().isEmpty());
      s.files().forEach(f -> assertEquals(64, f.sha256().length()));
    }
  }

  @Test
  void everyChunkOfADocumentIsInOneShard() throws Exception {
    // Read every chunk of every shard straight from Lucene: each document's chunks must all sit in the
    // shard ShardRouter names for its id, numbered #0..#n-1 without gaps.
    SnapshotLayout layout = new SnapshotLayout(root);
    Map<String, Set<Integer>> shardsOf = new TreeMap<>();
    Map<String, Set<String>> chunksOf = new TreeMap<>();
    int[] perShard = new int[2];
    for (int shard = 0; shard < 2; shard++) {
      try (FSDirectory dir = FSDirectory.open(layout.shardDir(report.snapshotId(), shard));
          DirectoryReader reader = DirectoryReader.open(dir)) {
        StoredFields stored = reader.storedFields();
        for (int i = 0; i < reader.maxDoc(); i++) {
          Document d = stored.document(i, Set.of(ShardSchema.DOC_ID, ShardSchema.CHUNK_ID));
          shardsOf.computeIfAbsent(d.get(ShardSchema.DOC_ID), k -> new TreeSet<>()).add(shard);
          chunksOf.computeIfAbsent(d.get(ShardSchema.DOC_ID), k -> new TreeSet<>()).add(d.get(ShardSchema.CHUNK_ID));
          perShard[shard]++;
        }
      }
    }
    assertEquals(9, shardsOf.size(), shardsOf.toString());
    assertTrue(perShard[0] > 0 && perShard[1] > 0, "both shards hold chunks: " + Arrays.toString(perShard));
    assertTrue(chunksOf.values().stream().anyMatch(c -> c.size() > 1), "some document has several chunks");
    shardsOf.forEach((doc, shards) -> assertEquals(Set.of(ShardRouter.shardOf(doc, 2)), shards, doc));
    chunksOf.forEach((doc, chunks) -> {
      Set<String> expected = new TreeSet<>();
      for (int i = 0; i < chunks.size(); i++) {
        expected.add(doc + "#" + i);
      }
      assertEquals(expected, chunks, doc);
    });
  }

  @Test
  void aDocumentRanksFirstForAQueryOnlyItAnswersInDenseAndBm25Modes() throws Exception {
    try (Searcher searcher = Searcher.open(root)) {
      assertEquals("sourdough", top(searcher, "sourdough starter lactobacilli", SearchMode.BM25));
      assertEquals("volcano", top(searcher, "stratovolcanoes viscous magma", SearchMode.BM25));
      // Paraphrases that share no content word with the document.
      assertEquals("tides", top(searcher, "why does the sea level go up and down each day", SearchMode.DENSE));
      assertEquals("penguins", top(searcher, "which birds keep their eggs warm on their feet in the polar night",
          SearchMode.DENSE));
      assertEquals("guide/lighthouse.md", top(searcher, "lamp keeper lens beam for ships", SearchMode.HYBRID));
    }
  }

  @Test
  void printsEffectiveConfigurationAndCounters() {
    assertTrue(output.contains("+ chunker.size: 48"), output);
    assertTrue(output.contains("| documents"), output);
    assertTrue(output.contains("| quarantined"), output);
    assertTrue(output.contains("embed busy"), output);
  }

  @Test
  void theUnpublishedStagingAreaIsEmpty() throws Exception {
    try (var dirs = Files.list(root.resolve("snapshots"))) {
      assertEquals(List.of(report.snapshotId()), dirs.map(p -> p.getFileName().toString()).toList());
    }
  }

  private static String top(Searcher searcher, String query, SearchMode mode) {
    List<SearchHit> hits = searcher.search(query, mode, 3).results();
    assertFalse(hits.isEmpty(), "no results for " + query);
    return hits.get(0).docId();
  }
}
