package dev.kiln.search.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.Chunk;
import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.search.SnapshotFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A range filter over several roots: every root binds it to its own manifest (a key may be a long in
 * one and a double in another), and a root that did not range-index the key refuses the whole search.
 */
class FederatedRangeFilterTest {
  @TempDir Path tmp;

  private Path root(String name, String prefix, String versionType) throws Exception {
    List<Chunk> chunks = new ArrayList<>();
    for (int v = 0; v < 8; v++) {
      chunks.add(SnapshotFixture.chunk(prefix + v, 0, "", "glacier survey number " + v,
          Map.of("version", versionType != null && versionType.equals("double") ? v + ".5" : Integer.toString(v))));
    }
    float[] vector = new float[384];
    vector[1] = 1;
    Path root = tmp.resolve(name);
    SnapshotFixture.withVectors(c -> vector)
        .rangeFields(versionType == null ? Map.of() : Map.of("version", versionType))
        .shards(List.of(chunks.subList(0, 4), chunks.subList(4, 8))).write(root);
    return root;
  }

  @Test
  void eachRootBindsTheRangeToItsOwnTypes() throws Exception {
    try (FederatedSearcher both = new FederatedSearcher(List.of(
        new FederatedSearcher.WeightedPath("a", Searcher.open(root("a", "a", "long")), 1),
        new FederatedSearcher.WeightedPath("b", Searcher.open(root("b", "b", "double")), 1)),
        FederatedSearcher.Merge.RRF, 60, RelevanceGate.OFF)) {
      List<SearchHit> hits = both.search(new SearchRequest("glacier survey", SearchMode.BM25, 50,
          MetadataFilter.parse(List.of("version>=5")))).results();
      assertEquals(List.of("a5#0", "a6#0", "a7#0", "b5#0", "b6#0", "b7#0"),
          hits.stream().map(SearchHit::chunkId).sorted().toList(), "5.5, 6.5 and 7.5 pass in b; 4.5 does not");
    }
  }

  @Test
  void aRootWithoutTheRangeFieldRefusesTheSearch() throws Exception {
    try (FederatedSearcher mixed = new FederatedSearcher(List.of(
        new FederatedSearcher.WeightedPath("a", Searcher.open(root("a", "a", "long")), 1),
        new FederatedSearcher.WeightedPath("c", Searcher.open(root("c", "c", null)), 1)),
        FederatedSearcher.Merge.RRF, 60, RelevanceGate.OFF)) {
      FilterException e = assertThrows(FilterException.class, () -> mixed.search(new SearchRequest("glacier",
          SearchMode.BM25, 5, MetadataFilter.parse(List.of("version>=5")))));
      assertTrue(e.getMessage().contains("'version' is not range-indexed"), e.getMessage());
      assertEquals(2, mixed.search(new SearchRequest("glacier", SearchMode.BM25, 5,
          MetadataFilter.parse(List.of("version=5")))).results().size(), "exact matches still work: a5, c5");
    }
  }
}
