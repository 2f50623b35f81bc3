package dev.kiln.jobs;

import static dev.kiln.jobs.UnchangedFilesITCase.docs;
import static dev.kiln.jobs.UnchangedFilesITCase.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.search.SearchHit;
import dev.kiln.search.Searcher;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.snapshot.Manifest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record that moves, unchanged, from one corpus file to another (a re-partitioned export) must not
 * be lost when, a build later, the file it moved to is left unread while the file it left is read.
 * The build that saw it move found the document unchanged; it must still record where the record now
 * lies, or the next build keeps it from neither file. It does (its chunks are copied with the new
 * position), so the next build may leave the file it moved to unread.
 */
class MovedRecordITCase {
  static final String MOVED = "a03";

  @TempDir static Path work;
  static Path corpus;
  static Path root;
  static long hourAgo;
  static Manifest moved;
  static Manifest next;
  static String nextOutput;

  @BeforeAll
  static void buildThenMoveARecordThenChangeTheFileItLeft() throws Exception {
    corpus = Files.createDirectories(work.resolve("corpus"));
    root = work.resolve("snapshots");
    hourAgo = System.currentTimeMillis() - 3_600_000;
    List<String> a = docs("a", 8);
    List<String> b = docs("b", 8);
    write("a.jsonl", a, 0);
    write("b.jsonl", b, 0);
    build(root, c -> {}, new ByteArrayOutputStream());

    // a03 moves, unchanged, from a.jsonl to the end of b.jsonl: both files change.
    String record = a.remove(3);
    b.add(record);
    write("a.jsonl", a, 60_000);
    write("b.jsonl", b, 60_000);
    moved = build(root, c -> {}, new ByteArrayOutputStream());

    // Then only a.jsonl changes again: b.jsonl, where a03 now lies, is left unread.
    a.set(4, line("a05", "Rewritten: document a05 now covers the tides of the Bay of Fundy."));
    write("a.jsonl", a, 120_000);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    next = build(root, c -> {}, out);
    nextOutput = out.toString(StandardCharsets.UTF_8);
  }

  static void write(String name, List<String> lines, long later) throws Exception {
    Files.write(corpus.resolve(name), new ArrayList<>(lines));
    Files.setLastModifiedTime(corpus.resolve(name), FileTime.fromMillis(hourAgo + later));
  }

  static Manifest build(Path snapshots, Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(corpus.toString(), snapshots.toString(), tweak, out);
  }

  @Test
  void theMovedDocumentSurvivesAndTheSnapshotEqualsAFullBuild() throws Exception {
    Map<String, Long> c = moved.counters();
    assertEquals(0L, c.get(JobCounters.RECORDS_UNREAD), "both files changed: " + c);
    assertEquals(1L, c.get(JobCounters.INCREMENTAL_RELOCATED), "a03 was copied with its new position: " + c);
    assertEquals(0L, c.get(JobCounters.SHARDS_WITHOUT_POSITIONS), "no stale position left: " + c);
    Map<String, Long> n = next.counters();
    assertEquals(9L, n.get(JobCounters.RECORDS_UNREAD), "b.jsonl, a03 included, is left unread: " + n);
    assertEquals(0L, n.get(JobCounters.INCREMENTAL_RELOCATED), n.toString());
    assertEquals(0L, n.get(JobCounters.SHARDS_WITHOUT_POSITIONS), n.toString());
    Path fullRoot = work.resolve("full");
    Manifest full = build(fullRoot, c2 -> c2.incremental = "off", new ByteArrayOutputStream());
    Map<String, String> contents = IncrementalBuildITCase.contents(root, next);
    assertTrue(contents.keySet().stream().anyMatch(id -> id.startsWith(MOVED + "#")), MOVED + " is there: "
        + nextOutput);
    assertEquals(IncrementalBuildITCase.contents(fullRoot, full), contents);
  }

  @Test
  void theMovedDocumentIsCitedAndFilteredByTheFileItNowLiesIn() throws Exception {
    try (Searcher s = Searcher.builder().root(root).snapshot(moved.id()).build()) {
      // The files as the build names them, from documents that never moved.
      String fileA = sourceOf(s, "a05");
      String fileB = sourceOf(s, "b00");
      assertTrue(fileA.endsWith("/a.jsonl") && fileB.endsWith("/b.jsonl"), fileA + " " + fileB);
      List<SearchHit> hits = s.bm25(MOVED, 100).stream().filter(h -> h.docId().equals(MOVED)).toList();
      assertFalse(hits.isEmpty(), "the moved document is found by its id's words");
      for (SearchHit h : hits) {
        assertEquals(fileB, h.metadata().get("source_uri"), h.chunkId() + " names the file it now lies in");
      }
      assertTrue(s.bm25(MOVED, 100, MetadataFilter.parse(List.of("source_uri=" + fileB))).stream()
          .anyMatch(h -> h.docId().equals(MOVED)), "a filter on the new file finds it");
      assertTrue(s.bm25(MOVED, 100, MetadataFilter.parse(List.of("source_uri=" + fileA))).stream()
          .noneMatch(h -> h.docId().equals(MOVED)), "a filter on the file it left does not");
    }
  }

  private static String sourceOf(Searcher s, String docId) {
    return s.bm25(docId, 100).stream().filter(h -> h.docId().equals(docId)).findFirst().orElseThrow()
        .metadata().get("source_uri");
  }
}
