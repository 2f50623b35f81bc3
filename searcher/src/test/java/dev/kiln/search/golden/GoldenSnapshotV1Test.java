package dev.kiln.search.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.parents.ParentExpander;
import dev.kiln.search.parents.ParentHit;
import dev.kiln.search.parents.ParentStore;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole published snapshots root of format version 1, committed as written by the build of
 * 2026-12-03 ({@code golden/format-v1/root}: {@code scripts/kiln build --corpus corpus.jsonl --shards 2
 * --parents 60 --chunk-size 24 --chunk-overlap 4}, one record quarantined for a missing id): two Lucene
 * shards, the parents docstore, stored vectors and the quarantine part. The current searcher must
 * open it through {@code CURRENT}, answer every mode from it and expand parents from its docstore,
 * so that a change to the shard schema, the docstore or the manifest that would strand snapshots
 * already published fails here.
 */
class GoldenSnapshotV1Test {
  private static final String ID = "20261203T172758Z-9f64fe";

  @TempDir Path tmp;
  private Path root;

  @BeforeEach
  void copyGoldenRoot() throws IOException, URISyntaxException {
    Path golden = Path.of(getClass().getResource("/golden/format-v1/root/CURRENT").toURI()).getParent();
    root = tmp.resolve("root");
    try (Stream<Path> files = Files.walk(golden)) {
      for (Path p : files.toList()) {
        Path target = root.resolve(golden.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  @Test
  void everyFileOfTheGoldenSnapshotStillVerifies() {
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(ID, store.currentId());
    assertEquals(List.of(), store.verify(store.manifest(ID)));
  }

  @Test
  void answersBm25DenseAndHybridFromTheGoldenSnapshot() throws IOException {
    try (Searcher searcher = Searcher.open(root)) {
      assertEquals(ID, searcher.snapshotId());
      assertEquals(6, searcher.chunkCount());
      for (SearchMode mode : SearchMode.values()) {
        SearchResponse r = searcher.search("compare-and-set of the CURRENT pointer", mode, 3);
        assertEquals(ID, r.snapshotId());
        assertFalse(r.results().isEmpty(), mode + " found nothing");
        assertEquals("kiln-1", r.results().get(0).docId(), mode + " ranked " + r.results());
      }
      SearchHit top = searcher.search("stable hash of the document id", SearchMode.BM25, 1).results().get(0);
      assertEquals("kiln-2", top.docId());
      assertEquals("globex", top.metadata().get("tenant"));
      assertTrue(top.chunkId().startsWith("kiln-2#"), top.chunkId());
    }
  }

  @Test
  void filtersOnTheGoldenSnapshotsMetadataFields() throws IOException {
    try (Searcher searcher = Searcher.open(root)) {
      SearchResponse r = searcher.search(new SearchRequest("snapshot shard vectors", SearchMode.HYBRID, 10,
          MetadataFilter.parse(List.of("tenant=globex"))));
      assertFalse(r.results().isEmpty());
      assertTrue(r.results().stream().allMatch(h -> h.docId().equals("kiln-2")), r.results().toString());
    }
  }

  @Test
  void expandsParentsFromTheGoldenDocstore() throws IOException {
    try (Searcher searcher = Searcher.open(root)) {
      List<SearchHit> children = searcher.search("Parquet parts keyed by content key", SearchMode.BM25,
          4 * ParentExpander.CHILDREN_PER_PARENT).results();
      try (ParentStore store = ParentStore.open(root, new SnapshotStore(root).manifest(ID))) {
        List<ParentHit> parents = ParentExpander.expand(children, store, 3);
        assertEquals("kiln-3", parents.get(0).docId());
        assertTrue(parents.get(0).text().contains("Stored vectors are kept per snapshot"), parents.get(0).text());
        assertEquals(parents.size(), parents.stream().map(ParentHit::parentId).distinct().count());
      }
    }
  }
}
