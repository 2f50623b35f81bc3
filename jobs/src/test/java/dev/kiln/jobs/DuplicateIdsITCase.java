package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.index.ParentStoreWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.operators.JobCounters;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Duplicate document ids in a full build, resolved by the shard and parents writers as pieces arrive
 * (no keyed stage sorts the corpus first): documents long enough for several chunks and parents, each
 * id in up to three files and twice in one file, read by two parallel readers. Every id keeps only the
 * pieces of its first record in (source, offset) order (two rows of one Parquet row group included),
 * every other record is quarantined once, the
 * counters add up to what the snapshot holds; an incremental build of the same corpus (whose writers
 * resolve unchanged records against fresh ones) keeps every document, so both paths pick the same
 * winners.
 */
class DuplicateIdsITCase {
  @TempDir static Path work;
  static Path corpus;
  static Path root;
  static Manifest full;
  /** Without parents: a full build, then an incremental one. */
  static Manifest plain;
  static Manifest again;
  /** Winner's marker word per duplicated id; every other version carries another marker. */
  static final Map<String, String> WINNERS = new TreeMap<>();
  static final int UNIQUE = 24;
  static final int LOSERS = 5;

  @BeforeAll
  static void buildTwice() throws Exception {
    corpus = work.resolve("corpus");
    Files.createDirectories(corpus);
    List<String> a = new ArrayList<>();
    List<String> b = new ArrayList<>();
    List<String> c = new ArrayList<>();
    for (int i = 0; i < UNIQUE; i++) {
      (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(line("u" + i, "unique" + i));
    }
    // "multi" in all three files: a.jsonl wins (it sorts first), the copies in b and c lose.
    c.add(0, line("multi", "charlie"));
    b.add(line("multi", "bravo"));
    a.add(line("multi", "alpha"));
    WINNERS.put("multi", "alpha");
    // "late" first in c's first line and later in b: b.jsonl sorts before c.jsonl, so b wins.
    c.add(0, line("late", "cobalt"));
    b.add(line("late", "bronze"));
    WINNERS.put("late", "bronze");
    // "twice" twice in a.jsonl: the first line wins.
    a.add(0, line("twice", "amber"));
    a.add(line("twice", "azure"));
    WINNERS.put("twice", "amber");
    Files.write(corpus.resolve("a.jsonl"), a);
    Files.write(corpus.resolve("b.jsonl"), b);
    Files.write(corpus.resolve("c.jsonl"), c);
    // "rows" twice in one Parquet row group: its first row wins (every row has its own offset).
    Schema schema = SchemaBuilder.record("Doc").fields().requiredString("_id").requiredString("title")
        .requiredString("text").endRecord();
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(
        new LocalOutputFile(corpus.resolve("d.parquet"))).withSchema(schema).build()) {
      for (String marker : new String[] {"delta", "dusk"}) {
        JsonNode row = new ObjectMapper().readTree(line("rows", marker));
        GenericRecord g = new GenericData.Record(schema);
        g.put("_id", row.get("_id").asText());
        g.put("title", row.get("title").asText());
        g.put("text", row.get("text").asText());
        w.write(g);
      }
    }
    WINNERS.put("rows", "delta");
    root = work.resolve("snapshots");
    full = build(root, cfg -> cfg.incremental = "off");
    plain = build(work.resolve("plain"), cfg -> cfg.chunker.parents.enabled = false);
    again = build(work.resolve("plain"), cfg -> cfg.chunker.parents.enabled = false);
  }

  /** A document of several chunks, every sentence carrying its version's marker word. */
  static String line(String id, String marker) {
    StringBuilder text = new StringBuilder();
    for (int s = 0; s < 12; s++) {
      text.append("Sentence ").append(s).append(" of this version mentions ").append(marker)
          .append(" among lighthouse keepers, tidal charts and the foghorn schedule. ");
    }
    return "{\"_id\": \"" + id + "\", \"title\": \"" + id + "\", \"text\": \"" + text.toString().trim() + "\"}";
  }

  static Manifest build(Path snapshots, Consumer<BuildConfig> tweak) throws Exception {
    return build(corpus, snapshots, tweak);
  }

  static Manifest build(Path corpus, Path snapshots, Consumer<BuildConfig> tweak) throws Exception {
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = snapshots.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 32;
    config.chunker.overlap = 4;
    config.chunker.hardCap = 64;
    config.chunker.parents.enabled = true;
    config.chunker.parents.size = 96;
    config.ingest.maxBadFraction = 0.5; // 4 of 31 records are duplicates on purpose
    tweak.accept(config);
    return new SnapshotBuilder(config.validate(), new PrintStream(new ByteArrayOutputStream(), true,
        StandardCharsets.UTF_8)).build(BuildJob.localEnvironment(2)).manifest();
  }

  @Test
  void eachIdKeepsOnlyTheChunksAndParentsOfItsFirstRecord() throws Exception {
    Map<String, List<String>> chunks = stored(root, full, false, ShardSchema.DOC_ID, ShardSchema.TEXT);
    Map<String, List<String>> parents = stored(root, full, true, ParentStoreWriter.DOC_ID, ParentStoreWriter.TEXT);
    assertOnlyWinners(chunks);
    for (Map.Entry<String, String> w : WINNERS.entrySet()) {
      assertEquals(parents.get("u0").size(), parents.get(w.getKey()).size(), w.getKey() + ": one copy of each parent");
      for (String t : parents.get(w.getKey())) {
        assertTrue(t.contains(w.getValue()), w.getKey() + ": a parent of a losing record was kept: " + t);
      }
    }
  }

  @Test
  void everyLosingRecordIsQuarantinedOnceAndTheCountersMatchTheSnapshot() throws Exception {
    Map<String, Long> c = full.counters();
    assertEquals(UNIQUE + WINNERS.size() + LOSERS, c.get(JobCounters.RECORDS_READ));
    assertEquals(UNIQUE + WINNERS.size(), c.get(JobCounters.DOCUMENTS));
    assertEquals(LOSERS, c.get(JobCounters.QUARANTINED));
    assertEquals(Map.of("duplicate_id", (long) LOSERS), full.quarantine().byReason());
    long chunks = stored(root, full, false, ShardSchema.DOC_ID, ShardSchema.TEXT).values().stream().mapToLong(List::size).sum();
    assertEquals(chunks, c.get(JobCounters.CHUNKS), "chunks counts what the shards hold");
    assertEquals(chunks, full.totalChunks());
    assertEquals(c.get(JobCounters.PARENTS), full.docstore().parents(), "parents counts what the docstore holds");

    List<JsonNode> records = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    try (Stream<Path> files = Files.list(root.resolve("quarantine").resolve(full.id()))) {
      for (Path f : files.toList()) {
        for (String l : Files.readAllLines(f)) {
          records.add(json.readTree(l));
        }
      }
    }
    assertEquals(LOSERS, records.size(), records.toString());
    List<String> losers = records.stream().map(r -> {
      assertEquals("duplicate_id", r.get("reason").asText());
      String uri = r.get("source_uri").asText();
      return uri.substring(uri.lastIndexOf('/') + 1) + "@" + r.get("offset").asLong();
    }).sorted().toList();
    long twiceOffset = offsetOfLastLine(corpus.resolve("a.jsonl"));
    long lateInB = offsetOfLastLine(corpus.resolve("b.jsonl"));
    long multiInB = lateInB - (line("multi", "bravo").getBytes(StandardCharsets.UTF_8).length + 1);
    long multiInC = line("late", "cobalt").getBytes(StandardCharsets.UTF_8).length + 1;
    assertEquals(List.of("a.jsonl@" + twiceOffset, "b.jsonl@" + multiInB, "c.jsonl@0", "c.jsonl@" + multiInC,
        "d.parquet@1"), losers, "the second 'twice' in a.jsonl, 'multi' in b and c, 'late' in c, row 1 of d.parquet");
    records.stream().filter(r -> r.get("source_uri").asText().endsWith("b.jsonl")).forEach(r ->
        assertTrue(r.get("detail").asText().contains("a.jsonl @ "), "names the winner: " + r));
  }

  @Test
  void anIncrementalBuildOfTheSameCorpusPicksTheSameWinners() throws Exception {
    Map<String, List<String>> plainChunks = stored(work.resolve("plain"), plain, false, ShardSchema.DOC_ID,
        ShardSchema.TEXT);
    assertOnlyWinners(plainChunks);
    Map<String, Long> c = again.counters();
    assertEquals(UNIQUE + WINNERS.size(), c.get(JobCounters.INCREMENTAL_UNCHANGED),
        "the winners parse unchanged, the losers (other texts) do not: " + c);
    assertEquals(UNIQUE + WINNERS.size(), c.get(JobCounters.INCREMENTAL_KEPT),
        "every winner is unchanged since the full build, so every one is kept: " + c);
    assertEquals(0, c.get(JobCounters.CHUNKS), "nothing was chunked again: " + c);
    assertEquals(LOSERS, c.get(JobCounters.QUARANTINED));
    assertTrue(plainChunks.equals(stored(work.resolve("plain"), again, false, ShardSchema.DOC_ID, ShardSchema.TEXT)),
        "the incremental snapshot holds the full build's chunks");
  }

  /**
   * An incremental build whose corpus gained a changed copy of an id before its unchanged record (the
   * copy wins: the base chunks go) and one after it (the copy loses: the base chunks stay) holds what a
   * full build of that corpus holds, and quarantines the two losers.
   */
  @Test
  void anIncrementalBuildResolvesChangedAgainstUnchangedCopiesAsAFullBuildDoes() throws Exception {
    Path grown = work.resolve("grown");
    IncrementalBuildITCase.copyTree(corpus, grown);
    Files.write(grown.resolve("0-first.jsonl"), List.of(line("u1", "zulu"))); // u1 is in b.jsonl
    Files.write(grown.resolve("e-last.jsonl"), List.of(line("u2", "yankee"))); // u2 is in c.jsonl
    Path continued = work.resolve("continued");
    IncrementalBuildITCase.copyTree(work.resolve("plain"), continued);
    Manifest inc = build(grown, continued, cfg -> cfg.chunker.parents.enabled = false);
    Manifest ref = build(grown, work.resolve("grown-full"), cfg -> {
      cfg.chunker.parents.enabled = false;
      cfg.incremental = "off";
    });
    Map<String, Long> c = inc.counters();
    assertEquals(UNIQUE + WINNERS.size() - 1, c.get(JobCounters.INCREMENTAL_KEPT),
        "every document but u1 keeps its base chunks: " + c);
    assertEquals(LOSERS + 2, c.get(JobCounters.QUARANTINED), "the unchanged u1 and the late u2 lose: " + c);
    Map<String, List<String>> chunks = stored(continued, inc, false, ShardSchema.DOC_ID, ShardSchema.TEXT);
    chunks.get("u1").forEach(t -> assertTrue(t.contains("zulu"), "u1 holds only its first record's chunks: " + t));
    chunks.get("u2").forEach(t -> assertTrue(t.contains("unique2"), "u2 keeps its base chunks: " + t));
    assertEquals(stored(work.resolve("grown-full"), ref, false, ShardSchema.DOC_ID, ShardSchema.TEXT), chunks,
        "the incremental snapshot holds the full build's chunks");
    assertEquals(ref.totalChunks(), inc.totalChunks());
  }

  /**
   * The same grown corpus, continued from the full build with parents: the docstore follows the shards
   * (u1's base parents go for the fresh copy's, u2's stay although a fresh copy of it was cut and lost),
   * so the incremental snapshot's docstore holds, parent by parent, what a full build's holds.
   */
  @Test
  void anIncrementalBuildWithParentsResolvesDuplicatesInTheDocstoreAsTheShardsDo() throws Exception {
    Path grown = work.resolve("grown-parents");
    IncrementalBuildITCase.copyTree(corpus, grown);
    Files.write(grown.resolve("0-first.jsonl"), List.of(line("u1", "zulu")));
    Files.write(grown.resolve("e-last.jsonl"), List.of(line("u2", "yankee")));
    Path continued = work.resolve("continued-parents");
    IncrementalBuildITCase.copyTree(root, continued);
    Manifest inc = build(grown, continued, cfg -> {});
    Manifest ref = build(grown, work.resolve("grown-parents-full"), cfg -> cfg.incremental = "off");
    Map<String, Long> c = inc.counters();
    assertEquals(UNIQUE + WINNERS.size() - 1, c.get(JobCounters.INCREMENTAL_KEPT), "incremental, u1 replaced: " + c);
    Map<String, List<String>> parents = stored(continued, inc, true, ParentStoreWriter.PARENT_ID, ParentStoreWriter.TEXT);
    assertEquals(stored(work.resolve("grown-parents-full"), ref, true, ParentStoreWriter.PARENT_ID,
        ParentStoreWriter.TEXT), parents, "the incremental docstore holds the full build's parents");
    parents.get("u1#p0").forEach(t -> assertTrue(t.contains("zulu"), "u1's fresh parent: " + t));
    parents.get("u2#p0").forEach(t -> assertTrue(t.contains("unique2"), "u2 keeps its base parent: " + t));
    assertEquals(ref.docstore().parents(), inc.docstore().parents());
    assertEquals(stored(work.resolve("grown-parents-full"), ref, false, ShardSchema.DOC_ID, ShardSchema.TEXT),
        stored(continued, inc, false, ShardSchema.DOC_ID, ShardSchema.TEXT), "and the full build's chunks");
  }

  /** Every duplicated id holds only pieces of its winner, and as many as a document of one version has. */
  static void assertOnlyWinners(Map<String, List<String>> chunks) {
    assertEquals(UNIQUE + WINNERS.size(), chunks.size(), chunks.keySet().toString());
    for (Map.Entry<String, String> w : WINNERS.entrySet()) {
      List<String> texts = chunks.get(w.getKey());
      assertTrue(texts.size() > 1, "several chunks per document: " + texts.size());
      for (String t : texts) {
        assertTrue(t.contains(w.getValue()), w.getKey() + ": a chunk of a losing record was kept: " + t);
      }
      assertEquals(chunks.get("u0").size(), texts.size(), w.getKey() + ": one copy of each chunk");
    }
  }

  static long offsetOfLastLine(Path file) throws Exception {
    List<String> lines = Files.readAllLines(file);
    return lines.stream().limit(lines.size() - 1).mapToLong(l -> l.getBytes(StandardCharsets.UTF_8).length + 1).sum();
  }

  /** Live stored values of {@code valueField} per {@code keyField}, over every shard (or docstore part). */
  static Map<String, List<String>> stored(Path snapshots, Manifest m, boolean parents, String keyField,
      String valueField) throws Exception {
    SnapshotLayout layout = new SnapshotLayout(snapshots);
    Map<String, List<String>> out = new TreeMap<>();
    for (int shard = 0; shard < 2; shard++) {
      Path dir = parents ? layout.parentsDir(m.id(), shard) : layout.shardDir(m.id(), shard);
      try (FSDirectory d = FSDirectory.open(dir); DirectoryReader r = DirectoryReader.open(d)) {
        for (LeafReaderContext leaf : r.leaves()) {
          Bits live = leaf.reader().getLiveDocs();
          StoredFields fields = leaf.reader().storedFields();
          for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
            if (live == null || live.get(doc)) {
              var stored = fields.document(doc);
              out.computeIfAbsent(stored.get(keyField), k -> new ArrayList<>()).add(stored.get(valueField));
            }
          }
        }
      }
    }
    out.values().forEach(l -> l.sort(null));
    return out;
  }
}
