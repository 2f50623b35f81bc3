package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.index.ParentStoreWriter;
import dev.kiln.operators.JobCounters;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.search.parents.ParentExpander;
import dev.kiln.search.parents.ParentHit;
import dev.kiln.search.parents.ParentStore;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental builds under parent-child chunking continue the parents docstore as they continue the
 * chunk shards, on a local root and on an {@code s3://} root (s3proxy). The corpus, a tree of JSON-lines
 * files, changes between the base and the incremental build in every way the shards know how to follow:
 * <ul>
 *   <li>{@code a.jsonl}: unchanged, left unread: its documents are kept from the base;
 *   <li>{@code b.jsonl}: {@code b03} rewritten, {@code b07} deleted;
 *   <li>{@code c.jsonl}: added, with {@code c00};
 *   <li>{@code 0.jsonl}: added, repeating the id {@code a05}: a fresh record that wins over the unread one
 *       (its file name comes first);
 *   <li>{@code z.jsonl}: rewritten, with another text for {@code a09}, which loses to the unread record
 *       of {@code a.jsonl} as it lost in the base: the base's parents of {@code a09} must stay.
 * </ul>
 * The incremental snapshot's docstore must then hold exactly what a full build of the same corpus holds,
 * parent by parent, and expanding any document's search hit to its parents must answer the same; it
 * writes only a small part of the docstore's bytes and shares the base's files.
 */
class IncrementalParentsITCase {
  static final String BUCKET = "kiln";
  static final String S3_ROOT = "s3://" + BUCKET + "/snapshots";
  static final int DOCS = 30;

  @TempDir static Path work;
  static Path corpus;
  static S3Server s3;
  static long hourAgo;
  static Manifest fullAfter;
  /** Root name → its base and incremental snapshot. */
  static final Map<String, List<Manifest>> built = new TreeMap<>();
  static final Map<String, String> outputs = new TreeMap<>();

  @BeforeAll
  static void buildABaseChangeTheCorpusAndBuildIncrementally() throws Exception {
    corpus = Files.createDirectories(work.resolve("corpus"));
    s3 = new S3Server(work.resolve("blobs"), BUCKET);
    hourAgo = System.currentTimeMillis() - 3_600_000;
    Random r = new Random(4401);
    write("a.jsonl", docs(r, "a", DOCS), 0);
    List<String> b = docs(r, "b", DOCS);
    write("b.jsonl", b, 0);
    write("z.jsonl", List.of(line("a09", "A copy of a09 in file z about herons, markera09. " + words(r, 120))), 0);
    Map<String, String> roots = Map.of("local", work.resolve("local").toString(), "s3", S3_ROOT);
    for (Map.Entry<String, String> root : roots.entrySet()) {
      built.computeIfAbsent(root.getKey(), k -> new ArrayList<>()).add(build(root.getValue(), c -> {}, null));
    }

    b.set(3, line("b03", "Rewritten: b03 (markerb03) now tells of eels crossing to the Sargasso Sea. " + words(r, 140)));
    b.remove(7);
    write("b.jsonl", b, 60_000);
    write("c.jsonl", List.of(line("c00", "An added document markerc00 about quokka lanterns. " + words(r, 130))), 60_000);
    write("0.jsonl", List.of(line("a05", "A newer a05 from file 0 about marmalade glaciers, markera05. " + words(r, 110))),
        60_000);
    write("z.jsonl", List.of(line("a09", "Another copy of a09 in file z about storks, markera09. " + words(r, 100))), 60_000);
    for (Map.Entry<String, String> root : roots.entrySet()) {
      built.get(root.getKey()).add(build(root.getValue(), c -> {}, root.getKey()));
    }
    fullAfter = build(work.resolve("full").toString(), c -> c.incremental = "off", null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void theRebuildIsIncrementalAndLeavesTheUnchangedFileUnread() {
    for (String root : built.keySet()) {
      Manifest inc = built.get(root).get(1);
      Map<String, Long> c = inc.counters();
      String out = outputs.get(root);
      assertTrue(out.contains("+ incremental: yes, over CURRENT " + built.get(root).get(0).id()), root + ": " + out);
      assertEquals(DOCS, c.get(JobCounters.RECORDS_UNREAD), root + ": a.jsonl's records: " + c);
      assertEquals(1, c.get(JobCounters.INCREMENTAL_REMOVED), root + ": b07: " + c);
      assertTrue(c.get(JobCounters.INCREMENTAL_KEPT) >= 2 * DOCS - 3, root + ": " + c);
      assertEquals(built.get(root).get(0).id(), inc.parent(), root);
    }
  }

  @Test
  void theDocstoreHoldsExactlyWhatAFullBuildOfTheSameCorpusHolds() throws Exception {
    Map<String, ParentStore.Parent> full = parents(work.resolve("full"), fullAfter);
    assertTrue(full.get("a05#p0").text().contains("marmalade glaciers"), "0.jsonl's a05 wins: " + full.get("a05#p0"));
    assertTrue(full.get("a09#p0").text().contains("Document a09"), "a.jsonl's a09 wins: " + full.get("a09#p0"));
    assertTrue(full.get("b03#p0").text().contains("Sargasso"), full.get("b03#p0").text());
    assertFalse(full.containsKey("b07#p0"));
    assertTrue(full.containsKey("c00#p0"));
    for (String root : built.keySet()) {
      Manifest inc = built.get(root).get(1);
      Path at = local(root, inc.id());
      assertEquals(new TreeMap<>(full), new TreeMap<>(parents(at, inc)), root + ": parent by parent");
      assertEquals(fullAfter.docstore().parents(), inc.docstore().parents(), root + ": the manifest's count");
      assertEquals(IncrementalBuildITCase.contents(work.resolve("full"), fullAfter),
          IncrementalBuildITCase.contents(at, inc), root + ": and the shards hold the same chunks");
    }
  }

  @Test
  void expandingEachDocumentsHitToItsParentsAnswersAsTheFullBuild() throws Exception {
    Path fullRoot = work.resolve("full");
    for (String root : built.keySet()) {
      Manifest inc = built.get(root).get(1);
      Path at = local(root, inc.id());
      try (Searcher fullSearcher = Searcher.builder().root(fullRoot).snapshot(fullAfter.id()).build();
          ParentStore fullStore = ParentStore.open(fullRoot, fullAfter);
          Searcher searcher = Searcher.builder().root(at).snapshot(inc.id()).build();
          ParentStore store = ParentStore.open(at, inc)) {
        for (String docId : docIds(parents(fullRoot, fullAfter))) {
          String query = "marker" + docId;
          List<ParentHit> expected = ParentExpander.expand(
              fullSearcher.search(query, SearchMode.BM25, 5).results(), fullStore, 1);
          List<ParentHit> got = ParentExpander.expand(searcher.search(query, SearchMode.BM25, 5).results(), store, 1);
          assertEquals(docId, expected.get(0).docId(), query + ": " + expected);
          assertEquals(summary(expected), summary(got), root + ": " + query);
        }
      }
    }
  }

  @Test
  void theDocstoreSharesTheBaseFilesAndWritesLittle() throws Exception {
    long fullSize = bytes(fullAfter.docstore().files(), true);
    for (String root : built.keySet()) {
      Manifest base = built.get(root).get(0);
      Manifest inc = built.get(root).get(1);
      List<Manifest.FileEntry> files = inc.docstore().files();
      long own = bytes(files, true);
      long referenced = bytes(files, false);
      System.out.printf("%s %s: docstore %d bytes, %d own, %d referenced (a full build's docstore: %d bytes)%n", root,
          inc.id(), own + referenced, own, referenced, fullSize);
      assertTrue(files.stream().anyMatch(f -> base.id().equals(f.snapshot())), root + ": the base's files are shared");
      assertTrue(own * 4 < fullSize, root + ": the build wrote " + own + " docstore bytes; a full docstore has " + fullSize);
      assertTrue(referenced > fullSize / 2, root + ": " + referenced + " bytes of the base docstore are shared");
    }
    SnapshotStorage storage = RemoteStorages.open(S3_ROOT, s3.settings());
    Manifest inc = built.get("s3").get(1);
    for (Manifest.FileEntry f : inc.docstore().files()) {
      String key = SnapshotLayout.snapshotKey(inc.id()) + SnapshotLayout.PARENTS + "/" + f.name();
      assertEquals(f.snapshot() == null, storage.exists(key), "only the files the build wrote are uploaded: " + key);
    }
    assertEquals(bytes(inc.docstore().files(), true), inc.counters().get(JobCounters.PARENTS_BYTES_UPLOADED),
        inc.counters().toString());
  }

  /** Each hit as the parent it expands to: its id, document and text. */
  private static List<String> summary(List<ParentHit> hits) {
    return hits.stream().map(h -> h.parentId() + " " + h.docId() + " " + h.title() + " " + h.text()).toList();
  }

  private static List<String> docIds(Map<String, ParentStore.Parent> parents) {
    return parents.values().stream().map(ParentStore.Parent::docId).distinct().sorted().toList();
  }

  /** Every live parent of a snapshot's docstore, by parent id; a parent id must be live once. */
  static Map<String, ParentStore.Parent> parents(Path snapshots, Manifest m) throws Exception {
    Map<String, ParentStore.Parent> out = new TreeMap<>();
    SnapshotLayout layout = new SnapshotLayout(snapshots);
    for (int shard = 0; shard < m.shards().size(); shard++) {
      try (FSDirectory dir = FSDirectory.open(layout.parentsDir(m.id(), shard));
          DirectoryReader reader = DirectoryReader.open(dir)) {
        for (LeafReaderContext leaf : reader.leaves()) {
          Bits live = leaf.reader().getLiveDocs();
          StoredFields stored = leaf.reader().storedFields();
          for (int d = 0; d < leaf.reader().maxDoc(); d++) {
            if (live != null && !live.get(d)) {
              continue;
            }
            var doc = stored.document(d);
            ParentStore.Parent p = new ParentStore.Parent(doc.get(ParentStoreWriter.PARENT_ID),
                doc.get(ParentStoreWriter.DOC_ID), doc.get(ParentStoreWriter.TITLE),
                doc.get(ParentStoreWriter.BREADCRUMB), doc.get(ParentStoreWriter.TEXT));
            assertEquals(null, out.put(p.parentId(), p), "a parent id is live once: " + p.parentId());
          }
        }
      }
    }
    return out;
  }

  static long bytes(List<Manifest.FileEntry> files, boolean own) {
    return files.stream().filter(f -> (f.snapshot() == null) == own).mapToLong(Manifest.FileEntry::size).sum();
  }

  /** A local snapshots root holding snapshot {@code id} of {@code root}: the root itself, or a verified download. */
  static Path local(String root, String id) throws Exception {
    if (root.equals("local")) {
      return work.resolve("local");
    }
    return new SnapshotMirror(RemoteStorages.open(S3_ROOT, s3.settings()), S3_ROOT, work.resolve("s3-copy-" + id))
        .localize(id);
  }

  /** Builds the corpus into {@code snapshots}; the output is kept under {@code outputName} when one is given. */
  static Manifest build(String snapshots, Consumer<BuildConfig> tweak, String outputName) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      return SmallBuilds.build(corpus.toString(), snapshots, c -> {
        c.ingest.maxBadFraction = 0.5; // the duplicate ids are quarantined
        c.chunker.parents.enabled = true;
        c.chunker.parents.size = 96;
        if (snapshots.startsWith("s3://")) {
          c.filesystem.putAll(s3.settings());
        }
        tweak.accept(c);
      }, out);
    } finally {
      String text = out.toString(StandardCharsets.UTF_8);
      System.out.println(text);
      if (outputName != null) {
        outputs.put(outputName, text);
      }
    }
  }

  static List<String> docs(Random r, String prefix, int n) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = String.format("%s%02d", prefix, i);
      lines.add(line(id, "Document " + id + " mentions the word marker" + id + " once. " + words(r, 120)));
    }
    return lines;
  }

  static String words(Random r, int n) {
    String[] syllables = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "da", "gu", "ho", "ji", "be", "fo"};
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      for (int s = 0; s < 2 + r.nextInt(2); s++) {
        b.append(syllables[r.nextInt(syllables.length)]);
      }
      b.append(i % 12 == 11 ? ". " : " ");
    }
    return b.toString();
  }

  static String line(String id, String text) {
    return "{\"_id\": \"" + id + "\", \"title\": \"Title of " + id + "\", \"text\": \"" + text + "\"}";
  }

  /** Writes a corpus file dated an hour ago plus {@code later} ms: well outside the listing's racy window. */
  static void write(String name, List<String> lines, long later) throws Exception {
    Files.write(corpus.resolve(name), lines);
    Files.setLastModifiedTime(corpus.resolve(name), FileTime.fromMillis(hourAgo + later));
  }
}
