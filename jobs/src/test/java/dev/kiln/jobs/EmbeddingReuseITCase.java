package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.fs.LocalTarget;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.vectors.VectorFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Embedding reuse end to end: build a fixture, change one document, rebuild. Only the changed
 * document's chunks may go through the model; every other chunk keeps its vector bit for bit, so
 * every other search result keeps its score.
 */
class EmbeddingReuseITCase {
  static final String CHANGED = "chess";
  static final List<String> QUERIES = List.of("why does the sea level go up and down each day",
      "bees keep warm in winter", "volcano eruption ash", "bread yeast culture", "compiler registers",
      "penguin eggs", "chess opening with c5");

  @TempDir static Path work;
  static Path root;
  static Manifest first;
  static Manifest second;
  static String secondOutput;

  @BeforeAll
  static void buildTwice() throws Exception {
    root = work.resolve("snapshots");
    Path corpus = work.resolve("corpus.jsonl");
    List<String> lines = Files.readAllLines(
        Path.of(EmbeddingReuseITCase.class.getResource("/fixture/corpus.jsonl").toURI()));
    Files.write(corpus, lines);
    first = build(corpus, new ByteArrayOutputStream());

    List<String> changed = lines.stream().map(l -> l.startsWith("{\"_id\": \"" + CHANGED + "\"")
        ? l.replace("\"text\": \"", "\"text\": \"The Najdorf is the sharpest line of all. ") : l).toList();
    assertFalse(changed.equals(lines), "the fixture must contain " + CHANGED);
    Files.write(corpus, changed);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = build(corpus, out);
    secondOutput = out.toString(StandardCharsets.UTF_8);
  }

  static Manifest build(Path corpus, ByteArrayOutputStream out) throws Exception {
    return new SnapshotBuilder(config(corpus, root), new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
  }

  static BuildConfig config(Path corpus, Path snapshots) {
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = snapshots.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.ingest.maxBadFraction = 0.5; // the fixture quarantines 2 of its 9 lines on purpose
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    config.incremental = "off"; // reuse of stored vectors is under test: every document goes to the embed stage
    return config;
  }

  @Test
  void onlyTheChangedDocumentsChunksAreEmbedded() throws Exception {
    assertEquals(first.totalChunks(), first.embeddings().embedded());
    assertEquals(0, first.embeddings().reused());
    assertNull(first.embeddings().reusedFrom());

    long changedChunks = chunksOf(second.id(), CHANGED);
    long changedBefore = chunksOf(first.id(), CHANGED);
    assertTrue(changedChunks > 0);
    assertEquals(changedChunks, second.embeddings().embedded());
    assertEquals(second.totalChunks() - changedChunks, second.embeddings().reused());
    assertEquals(first.totalChunks() - changedBefore, second.embeddings().reused());
    assertEquals(first.id(), second.embeddings().reusedFrom());
    assertEquals(second.embeddings().embedded(), second.counters().get("chunks.embedded"));
    assertEquals(second.embeddings().reused(), second.counters().get("chunks.reused"));
    assertTrue(secondOutput.contains("| chunks reused"), secondOutput);
  }

  @Test
  void eachEmbedSubtaskReadsOnlyThePartsOfItsOwnKeyPartition() {
    // Both builds ran two embed subtasks: each part of the first holds one partition's keys, and only
    // the subtask of that partition reads it (every part once, not once per subtask).
    assertTrue(first.embeddings().files().stream().allMatch(f -> f.name().matches("part-0000[01]-of-00002-.*")),
        first.embeddings().files().toString());
    assertEquals(first.embeddings().files().size(), second.counters().get(JobCounters.REUSE_PARTS_READ));
    assertEquals(0L, second.counters().get(JobCounters.REUSE_PARTS_REFUSED));
  }

  @Test
  void aStoredPartWhoseBytesChangedIsRefusedAndItsChunksEmbeddedAgain() throws Exception {
    Path copy = work.resolve("damaged");
    IncrementalBuildITCase.copyTree(root, copy);
    SnapshotStore store = new SnapshotStore(copy);
    Manifest.FileEntry part = second.embeddings().files().get(0);
    Path file = store.layout().snapshotDir(second.id()).resolve(second.embeddings().directory()).resolve(part.name());
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x01; // same size: the client's check passes, the subtask's hash does not
    Files.write(file, bytes);
    long[] inPart = {0};
    VectorFiles.read(new SnapshotStore(root).layout().snapshotDir(second.id()).resolve(second.embeddings().directory())
        .resolve(part.name()), second.embeddings().modelFingerprint(), 384, (k, v) -> inPart[0]++);

    BuildConfig config = config(work.resolve("corpus.jsonl"), copy);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest third = new SnapshotBuilder(config, new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
    assertEquals(1L, third.counters().get(JobCounters.REUSE_PARTS_REFUSED), out.toString(StandardCharsets.UTF_8));
    assertTrue(inPart[0] > 0);
    assertEquals(inPart[0], third.embeddings().embedded(), "the refused part's chunks, and no other, were embedded");
    assertEquals(third.totalChunks() - inPart[0], third.embeddings().reused());
    try (Searcher a = Searcher.builder().root(root).snapshot(second.id()).build();
        Searcher b = Searcher.builder().root(copy).snapshot(third.id()).build()) {
      for (String q : QUERIES) {
        assertEquals(scores(a.search(q, SearchMode.DENSE, 100).results()),
            scores(b.search(q, SearchMode.DENSE, 100).results()), q);
      }
    }
  }

  @Test
  void everyOtherResultIsUnchanged() throws Exception {
    try (Searcher a = Searcher.builder().root(root).snapshot(first.id()).build();
        Searcher b = Searcher.builder().root(root).snapshot(second.id()).build()) {
      for (String q : QUERIES) {
        // Dense scores are dot products of stored vectors: equal only if the vectors are.
        assertEquals(others(a.search(q, SearchMode.DENSE, 100).results()),
            others(b.search(q, SearchMode.DENSE, 100).results()), q);
        // BM25 scores move with corpus statistics when any document changes; what matches must not.
        assertEquals(others(a.bm25(q, 100)).keySet(), others(b.bm25(q, 100)).keySet(), q);
      }
    }
  }

  @Test
  void theManifestRecordsTheModelAndItsStoredVectors() throws Exception {
    Manifest.EmbeddingsInfo e = second.embeddings();
    assertEquals(second.model().fingerprint(), e.modelFingerprint());
    assertTrue(e.modelFingerprint().startsWith("sha256:"));
    assertFalse(e.files().isEmpty());
    assertTrue(new SnapshotStore(root).verify(second).isEmpty());
    Set<String> keys = new HashSet<>();
    long rows = 0;
    for (Path part : VectorFiles.parts(new SnapshotStore(root).layout().snapshotDir(second.id()).resolve(e.directory()))) {
      long[] n = {0};
      VectorFiles.read(part, e.modelFingerprint(), 384, (k, v) -> {
        keys.add(k);
        n[0]++;
      });
      rows += n[0];
    }
    assertEquals(keys.size(), rows, "a key is stored once");
    assertEquals(second.totalChunks(), rows, "the fixture has no duplicate chunks");
  }

  @Test
  void anotherModelOrNoReuseReusesNothing() {
    SnapshotStore store = new SnapshotStore(root);
    LocalTarget target = new LocalTarget(root.toString());
    BuildConfig config = new BuildConfig();
    EmbeddingReuse.Plan other = EmbeddingReuse.plan(config.embed, target, store, "sha256:another-model", 384);
    assertTrue(other.source().isEmpty());
    assertTrue(other.reason().contains("another model"), other.reason());
    config.embed.reuse = false;
    assertTrue(EmbeddingReuse.plan(config.embed, target, store, second.embeddings().modelFingerprint(), 384)
        .source().isEmpty());
    config.embed.reuse = true;
    config.embed.reuseFrom = first.id();
    EmbeddingReuse.Plan from = EmbeddingReuse.plan(config.embed, target, store, first.embeddings().modelFingerprint(), 384);
    assertEquals(first.id(), from.source().snapshotId());
  }

  private static Map<String, Double> scores(List<SearchHit> hits) {
    Map<String, Double> m = new LinkedHashMap<>();
    hits.forEach(h -> m.put(h.chunkId(), h.score()));
    return m;
  }

  private static Map<String, Double> others(List<SearchHit> hits) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (SearchHit h : hits) {
      if (!h.docId().equals(CHANGED)) {
        m.put(h.chunkId(), h.score());
      }
    }
    return m;
  }

  private static long chunksOf(String snapshot, String docId) throws Exception {
    try (Searcher s = Searcher.builder().root(root).snapshot(snapshot).build()) {
      // k above the chunk count: the kNN search returns every chunk
      float[] any = new float[384];
      any[0] = 1;
      return s.dense(any, 1000).stream().filter(h -> h.docId().equals(docId)).count();
    }
  }
}
