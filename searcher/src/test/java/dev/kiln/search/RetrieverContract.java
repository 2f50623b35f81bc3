package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.embed.TextEmbedder;
import dev.kiln.index.ShardSchema;
import dev.kiln.model.Chunk;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.testing.TestSeeds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link Retriever} contract, run against every implementation (each subclass says which, and
 * with which options) on a real two-shard snapshot written with the bundled model: candidates best
 * first, at most k, each chunk once, every one a chunk of the snapshot with its own text, filters
 * never leaking, the same answer for the same query, blank queries as documented, and k beyond the
 * corpus. Queries go through {@link Searcher#prepare} (rewrite and embedding as a search runs them).
 * Randomised cases draw from {@link TestSeeds} ({@code -Dkiln.tests.seed}).
 *
 * <p>The corpus holds two tenants; most texts are held by both, so a leaking filter would show up as
 * the other tenant's copy of an equally good chunk.
 */
@ExtendWith(TestSeeds.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RetrieverContract {
  private static final List<String> TENANTS = List.of("acme", "globex");
  /** Words of the corpus, words it lacks, and stop words: what random queries are made of. */
  private static final List<String> WORDS = List.of("volcano", "lava", "magma", "bread", "yeast", "oven",
      "chess", "pawn", "whale", "krill", "ocean", "git", "commit", "rebase", "branch", "marathon", "runners",
      "endurance", "quantum", "tax", "violin", "the", "of", "and", "how", "does");

  private TextEmbedder embedder;
  private Searcher searcher;
  private Retriever retriever;
  /** Chunk id → the chunk, as written. */
  private final Map<String, Chunk> corpus = new LinkedHashMap<>();

  /** Options the snapshot is searched with (what the retriever is composed from). */
  protected SearchOptions options() {
    return SearchOptions.defaults();
  }

  /** The retriever under test, made of (or taken from) the searcher over the test snapshot. */
  protected abstract Retriever retriever(Searcher searcher);

  @BeforeAll
  void writeSnapshot(@TempDir Path root) throws IOException {
    List<List<Chunk>> shards = new ArrayList<>();
    for (List<Chunk> shard : SnapshotFixture.defaultShards()) {
      List<Chunk> out = new ArrayList<>();
      for (Chunk c : shard) {
        for (String tenant : TENANTS) {
          // globex holds every other text only, so the tenants' corpora differ as well as overlap.
          if (tenant.equals("acme") || out.size() % 3 != 2) {
            Map<String, String> meta = new HashMap<>(c.metadata());
            meta.put("tenant", tenant);
            Chunk t = SnapshotFixture.chunk(tenant + "-" + c.docId(), c.ordinal(), c.title(), c.text(), meta);
            out.add(t);
            corpus.put(t.chunkId(), t);
          }
        }
      }
      shards.add(out);
    }
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).shards(shards).write(root);
    searcher = Searcher.builder().root(root).options(options()).build();
    retriever = retriever(searcher);
  }

  @AfterAll
  void close() throws IOException {
    searcher.close();
    embedder.close();
  }

  /** The retriever's candidates for {@code text} under {@code filter}, as the searcher prepares the query. */
  protected List<Candidate> candidates(String text, int k, MetadataFilter filter) throws IOException {
    MetadataFilter bound = searcher.bind(filter);
    return retriever.retrieve(searcher.prepare(retriever, text, null, bound), k, bound);
  }

  private List<SearchHit> hits(String text, int k, MetadataFilter filter) {
    MetadataFilter bound = searcher.bind(filter);
    return searcher.read(retriever, searcher.prepare(retriever, text, null, bound), k, bound);
  }

  /** A doc's chunk id, read from the index itself. */
  protected String chunkIdOf(int doc) {
    try {
      return searcher.indexSearcher().storedFields().document(doc).get(ShardSchema.CHUNK_ID);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String randomQuery(Random random) {
    int words = 1 + random.nextInt(4);
    List<String> q = new ArrayList<>();
    for (int i = 0; i < words; i++) {
      q.add(WORDS.get(random.nextInt(WORDS.size())));
    }
    return String.join(" ", q);
  }

  private static MetadataFilter randomFilter(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> MetadataFilter.none();
      case 1 -> MetadataFilter.parse(List.of("tenant=" + TENANTS.get(random.nextInt(TENANTS.size()))));
      case 2 -> MetadataFilter.parse(List.of("topic=software"));
      default -> MetadataFilter.parse(List.of("tenant=globex", "topic=geology"));
    };
  }

  /** Best first, at most k, each doc and chunk once, and every hit a chunk of the snapshot, whole. */
  private void assertWellFormed(List<Candidate> candidates, List<SearchHit> hits, int k, String query) {
    String where = retriever.name() + " for '" + query + "' k=" + k;
    assertTrue(candidates.size() <= k, where + ": " + candidates.size() + " candidates");
    Set<Integer> docs = new HashSet<>();
    for (int i = 0; i < candidates.size(); i++) {
      Candidate c = candidates.get(i);
      assertTrue(docs.add(c.doc()), where + ": doc " + c.doc() + " twice");
      assertTrue(Double.isFinite(c.score()), where + ": score " + c.score());
      if (i > 0) {
        assertTrue(c.score() <= candidates.get(i - 1).score(), where + ": not best first at " + i);
      }
    }
    for (Candidate c : candidates) {
      if (c.stored() != null) { // read ahead by the retriever: the doc's own fields, nobody else's
        assertEquals(chunkIdOf(c.doc()), c.stored().get(ShardSchema.CHUNK_ID), where + ": fields carried for " + c.doc());
      }
    }
    if (hits.size() == candidates.size()) {
      for (int i = 0; i < hits.size(); i++) {
        assertEquals(chunkIdOf(candidates.get(i).doc()), hits.get(i).chunkId(), where + ": hit " + i);
      }
    }
    Set<String> ids = new HashSet<>();
    for (SearchHit h : hits) {
      assertTrue(ids.add(h.chunkId()), where + ": chunk " + h.chunkId() + " twice");
      Chunk written = corpus.get(h.chunkId());
      assertTrue(written != null, where + ": " + h.chunkId() + " is not a chunk of the snapshot");
      assertEquals(written.text(), h.text(), where + ": text of " + h.chunkId());
      assertEquals(written.docId(), h.docId(), where + ": document of " + h.chunkId());
    }
  }

  @RepeatedTest(12)
  void candidatesAreBestFirstAtMostKEachChunkOnceAndReal(Random random) throws IOException {
    String query = randomQuery(random);
    int k = 1 + random.nextInt(corpus.size() + 4);
    MetadataFilter filter = randomFilter(random);
    List<Candidate> candidates = candidates(query, k, filter);
    List<SearchHit> hits = hits(query, k, filter);
    assertEquals(candidates.size(), hits.size());
    assertWellFormed(candidates, hits, k, query);
  }

  @RepeatedTest(8)
  void filtersNeverLeak(Random random) {
    String query = randomQuery(random);
    for (String tenant : TENANTS) {
      MetadataFilter filter = MetadataFilter.parse(List.of("tenant=" + tenant));
      List<SearchHit> hits = hits(query, corpus.size(), filter);
      for (SearchHit h : hits) {
        assertEquals(tenant, h.metadata().get("tenant"), retriever.name() + " for '" + query + "': " + h.chunkId());
      }
    }
    assertEquals(List.of(), hits(query, 5, MetadataFilter.parse(List.of("tenant=initech"))),
        "a filter no chunk passes finds nothing");
  }

  @Test
  void aTenantFilterStillFindsThatTenantsCopyOfTheBestText() {
    List<SearchHit> acme = hits("magma erupts from a volcano as lava", 3, MetadataFilter.parse(List.of("tenant=acme")));
    assertFalse(acme.isEmpty(), retriever.name());
    assertEquals("acme-volcano", acme.get(0).docId());
  }

  @RepeatedTest(4)
  void theSameQueryGetsTheSameAnswer(Random random) throws IOException {
    String query = randomQuery(random);
    MetadataFilter filter = randomFilter(random);
    int k = 1 + random.nextInt(10);
    assertEquals(candidates(query, k, filter), candidates(query, k, filter), retriever.name() + " for '" + query + "'");
  }

  /**
   * As documented on {@link Retriever#retrieve}: a query with nothing to match on finds nothing by its
   * terms; a retriever that reads the embedding still ranks by it, well formed.
   */
  @Test
  void blankAndStopWordQueriesAreWellFormedAndFindNothingByTermsAlone() throws IOException {
    for (String query : List.of("", "   ", "the of and")) {
      List<Candidate> candidates = candidates(query, 5, MetadataFilter.none());
      assertWellFormed(candidates, hits(query, 5, MetadataFilter.none()), 5, query);
      if (!retriever.usesVector()) {
        assertEquals(List.of(), candidates, retriever.name() + " for '" + query + "'");
      }
    }
  }

  @Test
  void aKBeyondTheCorpusReturnsAtMostTheCorpus() throws IOException {
    int k = SearchRequest.MAX_K;
    List<Candidate> candidates = candidates("git commit rebase", k, MetadataFilter.none());
    assertWellFormed(candidates, hits("git commit rebase", k, MetadataFilter.none()), k, "git commit rebase");
    assertTrue(candidates.size() <= corpus.size(), candidates.size() + " of " + corpus.size());
    if (retriever.usesVector()) {
      // A vector ranks every chunk: asked for more than there are, it returns them all.
      assertEquals(corpus.size(), candidates.size(), retriever.name());
    } else {
      long git = corpus.values().stream().filter(c -> c.docId().endsWith("-git")).count();
      assertEquals(git, candidates.size(), retriever.name() + ": the tenants' git chunks, only they");
    }
  }
}
