package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.Rm3Rewriter;
import dev.kiln.snapshot.SnapshotException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shard groups' three phases merged as the router merges them give exactly the single process's
 * answer: same chunks, same order, same scores, in every mode, with and without filters, for many
 * k, for an even and an uneven split of the shards.
 */
class ShardGroupSearchTest {
  /** Kiln's defaults less the feedback passes: the phases without them (RouterEqualityITCase runs them). */
  static final SearchOptions PLAIN = SearchOptions.defaults().toBuilder().denseFeedback(DenseFeedback.OFF)
      .lexicalFeedback(LexicalFeedback.OFF).build();

  @TempDir
  static Path root;
  static Searcher whole;
  static List<Searcher> even;
  static List<Searcher> uneven;

  @BeforeAll
  static void open() throws Exception {
    String id = ShardedCorpus.write(root, 1200, 4, 7);
    whole = Searcher.builder().root(root).snapshot(id).options(PLAIN).build();
    even = List.of(group(id, "0-1"), group(id, "2-3"));
    uneven = List.of(group(id, "0"), group(id, "1-3"));
  }

  private static Searcher group(String id, String shards) {
    return Searcher.builder().root(root).snapshot(id).options(PLAIN).shards(ShardSelection.parse(shards)).build();
  }

  @AfterAll
  static void close() throws Exception {
    whole.close();
    for (Searcher s : even) {
      s.close();
    }
    for (Searcher s : uneven) {
      s.close();
    }
  }

  /** What the router does, in process. */
  static SearchResponse routed(List<Searcher> groups, SearchRequest request) {
    List<ShardGroupSearch.Stats> stats = new ArrayList<>();
    for (Searcher g : groups) {
      stats.add(ShardGroupStats.stats(g, request.query(), request.mode(), request.filter()));
    }
    ShardGroupSearch.Global global = ShardGroupStats.sum(stats, request.filter().toQuery() != null);
    List<List<ShardGroupSearch.Leg>> legs = new ArrayList<>();
    for (Searcher g : groups) {
      legs.add(ShardGroupSearch.legs(g, request.query(), request.mode(), request.filter(), request.k(), global));
    }
    List<ShardMerge.Merged> merged = ShardMerge.merge(legs, ShardMerge.shardStarts(stats), request.k(),
        stats.get(0).plan().toFusion());
    List<SearchHit> hits = new ArrayList<>();
    for (ShardMerge.Merged m : merged) {
      for (Searcher g : groups) {
        if (g.shardSelection().contains(m.shard())) {
          hits.addAll(ShardGroupSearch.fetch(g, List.of(new ShardGroupSearch.Hit(m.shard(), m.doc(), m.score()))));
        }
      }
    }
    return new SearchResponse(groups.get(0).snapshotId(), request.mode(), hits);
  }

  @Test
  void everyModeFilterAndKGivesTheSingleProcessAnswer() {
    List<String> queries = List.of("lava magma", "whale krill ocean", "commit branch rebase", "oven", "storm thunder",
        "planet comet orbit signal", "the", "fuel engine piston market price trade", "glacier desert", "pawn king");
    List<MetadataFilter> filters = List.of(MetadataFilter.none(),
        MetadataFilter.of(Map.of("topic", List.of("geology"))),
        MetadataFilter.of(Map.of("lang", List.of("fr"))),
        MetadataFilter.of(Map.of("topic", List.of("games", "software"), "lang", List.of("en"))));
    int compared = 0;
    for (String q : queries) {
      for (SearchMode mode : List.of(SearchMode.BM25, SearchMode.DENSE, SearchMode.HYBRID)) {
        for (MetadataFilter f : filters) {
          for (int k : new int[] {100, 1, 5, 10, 37}) {
            SearchRequest request = new SearchRequest(q, mode, k, f);
            SearchResponse expected = whole.search(request);
            assertSameAnswer(expected, routed(even, request), "even split, " + request);
            assertSameAnswer(expected, routed(uneven, request), "uneven split, " + request);
            compared += expected.results().size();
          }
        }
      }
    }
    assertTrue(compared > 1000, "the queries found hits to compare: " + compared);
  }

  /**
   * The same chunks in the same order with the same stored fields, scores equal within float rounding:
   * the model's query embedding can differ in its last bit between the embedder instances of two
   * searchers (as between two processes), which moves dense scores by an ulp. BM25 scores are equal.
   */
  static void assertSameAnswer(SearchResponse expected, SearchResponse actual, String what) {
    assertEquals(expected.snapshotId(), actual.snapshotId(), what);
    assertEquals(expected.mode(), actual.mode(), what);
    assertEquals(expected.reason(), actual.reason(), what);
    assertEquals(expected.results().size(), actual.results().size(), what);
    for (int i = 0; i < expected.results().size(); i++) {
      SearchHit e = expected.results().get(i);
      SearchHit a = actual.results().get(i);
      assertEquals(e.withScore(0), a.withScore(0), what + ", hit " + i);
      assertEquals(e.score(), a.score(), 1e-5, what + ", hit " + i);
      if (expected.mode() == SearchMode.BM25) {
        assertEquals(e.score(), a.score(), 0.0, what + ", hit " + i + ": BM25 scores are exact");
      }
    }
  }

  @Test
  void aGroupServesNamedRewritersAndGatesButRefusesAnUnnamedRewriter() throws Exception {
    try (Searcher gated = Searcher.builder().root(root).snapshot(whole.snapshotId())
        .options(SearchOptions.defaults().withGates(0.5, 0.1)).shards(ShardSelection.parse("0-1")).build();
        Searcher rm3 = Searcher.builder().root(root).snapshot(whole.snapshotId())
            .options(SearchOptions.defaults().withPrf(true)).shards(ShardSelection.parse("0-1")).build();
        Searcher custom = Searcher.builder().root(root).snapshot(whole.snapshotId())
            .rewriter(new Rm3Rewriter(3, 5, 0.4f)).shards(ShardSelection.parse("0-1")).build()) {
      // Hybrid's feedback passes (on by default), the gates and --prf's RM3 (by name) are split by the router.
      ShardGroupSearch.checkSplittable(gated);
      ShardGroupSearch.checkSplittable(rm3);
      assertEquals("rm3", ShardGroupSearch.plan(rm3).rewriter());
      assertEquals("none", ShardGroupSearch.plan(gated).rewriter());
      // A request's rewriter is named in its plan; switching feedback off switches --prf's RM3 off.
      assertEquals("keywords", ShardGroupSearch.plan(rm3, ShardGroupSearch.effective(rm3,
          RequestOptions.builder().rewriter("keywords").build())).rewriter());
      assertEquals("none", ShardGroupSearch.plan(rm3, ShardGroupSearch.effective(rm3,
          RequestOptions.builder().feedback(false).build())).rewriter());
      // A rewriter object given to the builder has no name the router could run it by.
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> ShardGroupSearch.checkSplittable(custom));
      assertTrue(e.getMessage().contains("--prf"), e.getMessage());
      assertEquals(0.5, ShardGroupSearch.plan(gated).gate().minScore());
      assertTrue(ShardGroupSearch.plan(even.get(0)).gate().isOff());
    }
    ShardGroupSearch.checkSplittable(even.get(0));
  }

  @Test
  void aRequestsOptionsMakeItsPlan() {
    ShardGroupSearch.Plan plan = ShardGroupSearch.plan(even.get(0), ShardGroupSearch.effective(even.get(0),
        RequestOptions.builder().ef(77).alpha(0.25).denseDepth(9).minScore(0.4).rerankDepth(33).rerank(true)
            .build()));
    assertEquals(77, plan.ef());
    assertEquals(0.25, plan.alpha());
    assertEquals(9, plan.denseDepth());
    assertEquals(0.4, plan.gate().minScore());
    assertEquals(33, plan.rerankDepth());
    // rerank=true is the router's to judge (it holds the reranker), not refused by a group without one.
    assertEquals(null, plan.reranker());
    assertThrows(SettingException.class, () -> ShardGroupSearch.effective(even.get(0),
        RequestOptions.builder().rewriter("nonesuch").build()));
  }

  @Test
  void aGroupOpensOnlyItsShards() {
    assertEquals(whole.chunkCount(), even.get(0).chunkCount() + even.get(1).chunkCount());
    assertEquals(ShardSelection.parse("2-3"), even.get(1).shardSelection());
  }

  @Test
  void aRangePastTheSnapshotsShardsIsRefusedWithTheCount() {
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> group(whole.snapshotId(), "3-5"));
    assertTrue(e.getMessage().contains("has 4 shard(s)"), e.getMessage());
  }

  @Test
  void badShardArgumentsNameTheFlag() {
    for (String bad : new String[] {"", "a", "3-1", "-1", "1-"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShardSelection.parse(bad));
      assertTrue(e.getMessage().contains("--shards"), e.getMessage());
    }
    assertEquals(new ShardSelection(2, 2), ShardSelection.parse("2"));
    assertEquals(new ShardSelection(0, 3), ShardSelection.parse(" 0-3 "));
  }
}
