package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.index.DocFingerprintFile;
import dev.kiln.index.ShardSchema;
import dev.kiln.operators.JobCounters;
import dev.kiln.route.ShardRouter;
import dev.kiln.search.SearchHit;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental corpus builds end to end: build 30 documents, then change one, remove one and add one
 * and build again over the same root. The second build must rewrite only what changed and end with
 * exactly the chunks — ids, text and vectors — that a full build of the new corpus has; the base
 * snapshot must still verify afterwards (its segments were hard-linked, never changed).
 */
class IncrementalBuildITCase {
  static final int DOCS = 30;
  static final String CHANGED = "d07";
  static final String REMOVED = "d12";
  static final String ADDED = "d99";

  @TempDir static Path work;
  static Path root;
  static Path corpus;
  static Manifest first;
  static Manifest second;
  static String secondOutput;
  static Manifest full;

  @BeforeAll
  static void buildThenChangeThenBuildAgain() throws Exception {
    root = work.resolve("snapshots");
    corpus = work.resolve("corpus.jsonl");
    List<String> lines = firstCorpus();
    Files.write(corpus, lines);
    first = build(root, c -> {}, new ByteArrayOutputStream());
    Files.write(corpus, changedCorpus(lines));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = build(root, c -> {}, out);
    secondOutput = out.toString(StandardCharsets.UTF_8);
    full = build(work.resolve("full"), c -> c.incremental = "off", new ByteArrayOutputStream());
  }

  /** The first corpus: {@link #DOCS} one-line documents, each with a marker word of its own. */
  static List<String> firstCorpus() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < DOCS; i++) {
      lines.add(line(String.format("d%02d", i), "Document " + i + " is about " + TOPICS[i % TOPICS.length]
          + ". It repeats the marker word token" + i + " so that BM25 can find it alone."));
    }
    return lines;
  }

  /** {@code lines} with {@link #CHANGED} rewritten, {@link #REMOVED} gone and {@link #ADDED} added. */
  static List<String> changedCorpus(List<String> lines) {
    List<String> next = new ArrayList<>();
    for (String l : lines) {
      if (l.contains("\"" + REMOVED + "\"")) {
        continue;
      }
      next.add(l.contains("\"" + CHANGED + "\"") ? line(CHANGED, "Rewritten: the zeppelin hangar now holds "
          + "a rigid airship, and nothing about the old subject remains.") : l);
    }
    next.add(line(ADDED, "A new document about lighthouse keepers and the foghorn schedule."));
    return next;
  }

  static final String[] TOPICS = {"tidal forces and the moon", "honeybee winter clusters", "stratovolcano eruptions",
      "sourdough starters", "register allocation in compilers", "emperor penguin eggs"};

  static String line(String id, String text) {
    return "{\"_id\": \"" + id + "\", \"title\": \"Title of " + id + "\", \"text\": \"" + text
        + "\", \"metadata\": {\"tenant\": \"t" + (id.hashCode() % 3) + "\"}}";
  }

  static Manifest build(Path snapshots, Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(corpus.toString(), snapshots.toString(), tweak, out);
  }

  @Test
  void theSecondBuildRewritesOnlyWhatChanged() throws Exception {
    assertTrue(secondOutput.contains("+ incremental: yes, over CURRENT " + first.id()), secondOutput);
    Map<String, Long> c = second.counters();
    assertEquals(DOCS - 2, c.get(JobCounters.INCREMENTAL_KEPT), "unchanged documents kept: " + c);
    assertEquals(DOCS - 2, c.get(JobCounters.INCREMENTAL_UNCHANGED), c.toString());
    assertEquals(1, c.get(JobCounters.INCREMENTAL_REMOVED), "the removed document: " + c);
    // Only the changed and the added document were chunked and embedded.
    assertEquals(c.get(JobCounters.CHUNKS), c.get(JobCounters.CHUNKS_EMBEDDED) + c.get(JobCounters.CHUNKS_REUSED)
        + c.get(JobCounters.CHUNKS_DEDUPLICATED));
    assertEquals(chunksOf(work.resolve("full"), full, CHANGED) + chunksOf(work.resolve("full"), full, ADDED),
        c.get(JobCounters.CHUNKS), c.toString());
  }

  @Test
  void theIncrementalSnapshotHoldsExactlyWhatAFullBuildHolds() throws Exception {
    Map<String, String> inc = contents(root, second);
    Map<String, String> ref = contents(work.resolve("full"), full);
    assertEquals(ref.keySet(), inc.keySet(), "the same chunk ids");
    assertEquals(ref, inc, "the same text, vector and document fingerprint for every chunk");
    assertEquals(full.totalChunks(), second.totalChunks());
    assertFalse(inc.keySet().stream().anyMatch(id -> id.startsWith(REMOVED + "#")));
  }

  @Test
  void searchSeesTheNewTextAndNeitherTheOldNorTheRemovedDocument() throws Exception {
    try (Searcher s = Searcher.builder().root(root).build()) {
      assertEquals(second.id(), s.snapshotId());
      assertEquals(CHANGED, s.bm25("zeppelin airship hangar", 1).get(0).docId());
      assertEquals(ADDED, s.bm25("lighthouse foghorn", 1).get(0).docId());
      assertTrue(s.bm25("token7", 10).isEmpty(), "the changed document's old text is gone");
      assertTrue(s.bm25("token12", 10).isEmpty(), "the removed document is gone");
      List<SearchHit> kept = s.bm25("token3", 10);
      assertEquals("d03", kept.get(0).docId());
    }
  }

  @Test
  void theBaseSnapshotStillVerifiesAfterItsSegmentsWereContinued() {
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(List.of(), store.verify(store.manifest(first.id())));
    assertEquals(List.of(), store.verify(store.manifest(second.id())));
  }

  @Test
  void theRebuildReferencesTheBasesUnchangedFilesAndHoldsTheirHardLinks() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(2, second.formatVersion());
    int referenced = 0;
    for (Manifest.ShardEntry shard : second.shards()) {
      for (Manifest.FileEntry f : shard.files()) {
        Path here = store.layout().shardDir(second.id(), shard.shard()).resolve(f.name());
        if (f.snapshot() != null) {
          referenced++;
          assertEquals(first.id(), f.snapshot(), f.toString());
          Path owner = store.layout().file(second.id(), shard.directory(), f);
          assertTrue(Files.isSameFile(here, owner), "a local root links the shared file, never copies it: " + f);
        } else {
          assertFalse(first.shards().get(shard.shard()).files().stream().anyMatch(b -> b.name().equals(f.name())
              && b.sha256().equals(f.sha256())), "a file of the base is referenced, not listed as new: " + f);
        }
      }
    }
    assertTrue(referenced > 0, "the base's unchanged segments are referenced: " + second.shards());
  }

  @Test
  void everyShardHasItsOwnFingerprintFileListedInTheManifest() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    for (Manifest m : List.of(first, second)) {
      int documents = 0;
      for (int shard = 0; shard < m.shards().size(); shard++) {
        Path dir = store.layout().shardDir(m.id(), shard);
        assertTrue(m.shards().get(shard).files().stream().anyMatch(f -> f.name().equals(DocFingerprintFile.NAME)),
            m.id() + " shard " + shard + " lists its fingerprint file");
        DocFingerprintFile file = DocFingerprintFile.open(dir);
        Map<String, String> live = documentFingerprints(dir);
        assertEquals(live.size(), file.size(), m.id() + " shard " + shard + ": one per live document");
        for (String fp : live.values()) {
          assertTrue(file.contains(HexFormat.of().parseHex(fp)), fp);
        }
        documents += live.size();
      }
      assertEquals(DOCS, documents, m.id());
    }
    int shard = ShardRouter.shardOf(CHANGED, 2);
    Path before = store.layout().shardDir(first.id(), shard);
    Path after = store.layout().shardDir(second.id(), shard);
    assertFalse(Files.isSameFile(before.resolve(DocFingerprintFile.NAME), after.resolve(DocFingerprintFile.NAME)),
        "the continued shard has a file of its own, not the base's linked");
    byte[] old = HexFormat.of().parseHex(documentFingerprints(before).get(CHANGED));
    assertTrue(DocFingerprintFile.open(before).contains(old), "the base's file is as it was");
    assertFalse(DocFingerprintFile.open(after).contains(old), "the changed document's old fingerprint is gone");
    assertTrue(DocFingerprintFile.open(after).contains(HexFormat.of().parseHex(documentFingerprints(after).get(CHANGED))));
  }

  /** Document id → fingerprint (hex) of every live chunk of a shard. */
  private static Map<String, String> documentFingerprints(Path shardDir) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (FSDirectory dir = FSDirectory.open(shardDir); DirectoryReader reader = DirectoryReader.open(dir)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        Bits live = leaf.reader().getLiveDocs();
        StoredFields stored = leaf.reader().storedFields();
        var fps = leaf.reader().getBinaryDocValues(ShardSchema.DOC_FP);
        for (int d = fps.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = fps.nextDoc()) {
          if (live == null || live.get(d)) {
            BytesRef b = fps.binaryValue();
            out.put(stored.document(d).get(ShardSchema.DOC_ID),
                HexFormat.of().formatHex(b.bytes, b.offset, b.offset + b.length));
          }
        }
      }
    }
    return out;
  }

  @Test
  void aFullBuildAfterAnIncrementalOneReusesTheVectorsStoredBeforeIt() throws Exception {
    // CURRENT (the incremental build) stores only the vectors of the two documents it embedded; the
    // rest live in the first build's stored vectors, which a full build over it must find too.
    Path compact = work.resolve("compact");
    copyTree(root, compact);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest rebuilt = build(compact, c -> c.incremental = "off", out);
    String text = out.toString(StandardCharsets.UTF_8);
    Map<String, Long> c = rebuilt.counters();
    assertEquals(0, c.get(JobCounters.CHUNKS_EMBEDDED), "nothing embedded again: " + text);
    assertEquals(0, c.get(JobCounters.MODEL_LOADS), text);
    assertEquals(rebuilt.totalChunks(), c.get(JobCounters.CHUNKS_REUSED), text);
    assertEquals(contents(root, second), contents(compact, rebuilt), "the same chunks and vectors");
  }

  @Test
  void anUnchangedCorpusRebuildsNothingAndAnotherChunkerBuildsInFull() throws Exception {
    Path again = work.resolve("again");
    copyTree(root, again);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest third = build(again, c -> {}, out);
    assertEquals(0, third.counters().get(JobCounters.CHUNKS), out.toString(StandardCharsets.UTF_8));
    assertEquals(0, third.counters().get(JobCounters.MODEL_LOADS));
    assertEquals(DOCS, third.counters().get(JobCounters.INCREMENTAL_KEPT), "29 of the first corpus and the added one");
    assertEquals(0, third.counters().get(JobCounters.INCREMENTAL_REMOVED));
    assertEquals(contents(root, second), contents(again, third));

    ByteArrayOutputStream other = new ByteArrayOutputStream();
    Manifest rechunked = build(again, c -> c.chunker.size = 64, other);
    String text = other.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("+ incremental: no, a full build: this build has other chunker settings than CURRENT "
        + third.id()), text);
    assertEquals(rechunked.counters().get(JobCounters.CHUNKS), rechunked.totalChunks());
  }

  /** Copies a directory tree (a corpus, a snapshots root) file by file. */
  static void copyTree(Path from, Path to) throws Exception {
    try (var paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }

  private static long chunksOf(Path snapshots, Manifest m, String docId) throws Exception {
    return contents(snapshots, m).keySet().stream().filter(id -> id.startsWith(docId + "#")).count();
  }

  /** Every live chunk of a snapshot: chunk id → text, vector and document fingerprint. */
  static Map<String, String> contents(Path snapshots, Manifest m) throws Exception {
    Map<String, String> out = new TreeMap<>();
    SnapshotStore store = new SnapshotStore(snapshots);
    for (int shard = 0; shard < m.shards().size(); shard++) {
      try (FSDirectory dir = FSDirectory.open(store.layout().shardDir(m.id(), shard));
          DirectoryReader reader = DirectoryReader.open(dir)) {
        for (LeafReaderContext leaf : reader.leaves()) {
          Bits live = leaf.reader().getLiveDocs();
          StoredFields stored = leaf.reader().storedFields();
          FloatVectorValues vectors = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
          KnnVectorValues.DocIndexIterator it = vectors.iterator();
          var fps = leaf.reader().getBinaryDocValues(ShardSchema.DOC_FP);
          for (int d = it.nextDoc(); d != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS; d = it.nextDoc()) {
            if (live != null && !live.get(d)) {
              continue;
            }
            var doc = stored.document(d);
            assertTrue(fps.advanceExact(d), "every chunk carries its document's fingerprint");
            String previous = out.put(doc.get(ShardSchema.CHUNK_ID), doc.get(ShardSchema.TEXT) + " | "
                + Arrays.toString(vectors.vectorValue(it.index())) + " | " + HexFormat.of().formatHex(fps.binaryValue().bytes, fps.binaryValue().offset,
                    fps.binaryValue().offset + fps.binaryValue().length));
            assertEquals(null, previous, "a chunk id is live once: " + doc.get(ShardSchema.CHUNK_ID));
          }
        }
      }
    }
    return out;
  }
}
