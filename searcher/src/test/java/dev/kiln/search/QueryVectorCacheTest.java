package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.TextEmbedder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query-vector cache with the real bundled models: what it keys on, what it evicts, that it never
 * hands one model's vector to another, and, through a real searcher, that a repeated query skips the
 * model and returns the same results.
 */
class QueryVectorCacheTest {
  private static final String BGE = "bge-small-en-v15-q|bge";
  private static final String MINILM = "all-minilm-l6-v2-q|minilm";

  @TempDir static Path root;
  private static TextEmbedder bge;
  private static TextEmbedder minilm;

  @BeforeAll
  static void open() throws IOException {
    bge = TextEmbedder.open(ModelRegistry.resolve("bge-small-en-v15-q"), 1, 1);
    minilm = SnapshotFixture.openEmbedder();
    new SnapshotFixture(minilm).write(root);
  }

  @AfterAll
  static void close() {
    bge.close();
    minilm.close();
  }

  @Test
  void normalizingWhitespaceKeepsTheModelsVector() {
    assertEquals("what causes cancer?", QueryVectorCache.normalize("  what\tcauses \u00a0\n cancer? "));
    assertEquals("Cancer", QueryVectorCache.normalize("Cancer"), "case is kept");
    // The key may only merge texts the model cannot tell apart: the bundled tokenizers drop whitespace.
    for (TextEmbedder e : List.of(bge, minilm)) {
      assertArrayEquals(e.embedQuery("what causes cancer?"), e.embedQuery("  what\tcauses   cancer? "), 0f,
          e.spec().name());
    }
  }

  @Test
  void aRepeatedQueryIsServedItsModelsVectorAndCounted() {
    QueryVectorCache cache = new QueryVectorCache(BGE, 4);
    String q = "vitamin D and bone density";
    assertNull(cache.get(BGE, q));
    float[] v = bge.embedQuery(q);
    cache.put(BGE, q, v);
    float[] hit = cache.get(BGE, " vitamin D  and bone density");
    assertArrayEquals(v, hit, 0f);
    hit[0] = 42; // a caller changing its copy changes nothing cached
    assertArrayEquals(v, cache.get(BGE, q), 0f);
    assertNull(cache.get(BGE, "Vitamin D and bone density"), "another text (case) is another query");
    assertEquals(2, cache.hits());
    assertEquals(2, cache.misses());
  }

  @Test
  void neverServesOrKeepsAnotherModelsVector() {
    String q = "smoking and lung cancer";
    QueryVectorCache cache = new QueryVectorCache(BGE, 4);
    cache.put(BGE, q, bge.embedQuery(q));
    assertNull(cache.get(MINILM, q), "a MiniLM lookup must not get bge's vector");
    cache.put(MINILM, q, minilm.embedQuery(q));
    assertEquals(1, cache.size(), "another model's vector is not kept");
    assertArrayEquals(bge.embedQuery(q), cache.get(BGE, q), 0f);
  }

  @Test
  void keepsTheMostRecentlyUsedWithinItsSize() {
    QueryVectorCache cache = new QueryVectorCache(BGE, 2);
    cache.put(BGE, "a", new float[] {1});
    cache.put(BGE, "b", new float[] {2});
    assertNotNull(cache.get(BGE, "a")); // a is now the most recent
    cache.put(BGE, "c", new float[] {3});
    assertEquals(2, cache.size());
    assertNull(cache.get(BGE, "b"), "the least recently used goes first");
    assertArrayEquals(new float[] {1}, cache.get(BGE, "a"), 0f);
    assertArrayEquals(new float[] {3}, cache.get(BGE, "c"), 0f);
  }

  @Test
  void sizeZeroKeepsNothing() {
    QueryVectorCache cache = new QueryVectorCache(BGE, 0);
    cache.put(BGE, "a", new float[] {1});
    assertNull(cache.get(BGE, "a"));
    assertEquals(0, cache.size());
    assertEquals(1, cache.misses());
    assertThrows(IllegalArgumentException.class, () -> new QueryVectorCache(BGE, -1));
  }

  @Test
  void aSearcherEmbedsARepeatedQueryOnceAndAnswersAlike() throws IOException {
    String q = "replaying commits onto another branch";
    try (Searcher s = Searcher.builder().root(root).build()) {
      List<SearchHit> first = s.search(q, SearchMode.HYBRID, 4).results();
      List<SearchHit> again = s.search("replaying  commits onto another branch ", SearchMode.HYBRID, 4).results();
      assertEquals(first, again);
      assertEquals(1, s.queryCacheHits());
      assertEquals(1, s.queryCacheMisses());
    }
    try (Searcher off = Searcher.builder().root(root).options(SearchOptions.defaults().withQueryCache(0)).build()) {
      off.search(q, SearchMode.HYBRID, 4);
      off.search(q, SearchMode.HYBRID, 4);
      assertEquals(0, off.queryCacheHits(), "--query-cache 0 embeds every query");
      assertEquals(2, off.queryCacheMisses());
    }
  }
}
