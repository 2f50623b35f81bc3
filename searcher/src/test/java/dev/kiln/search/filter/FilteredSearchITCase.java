package dev.kiln.search.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.model.Chunk;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.search.SharedDatasets;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.testing.TestSeeds;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.util.IOUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Filtered retrieval on real embeddings: sentences of the Cranfield corpus (read from the shared
 * datasets at test time) embedded with the bundled model, with synthetic metadata that selects
 * exactly 50 %, 5 % and 0.5 % of the chunks and assigns one of seven tenants.
 */
@ExtendWith(TestSeeds.class)
class FilteredSearchITCase {
  private static final Logger LOG = LoggerFactory.getLogger(FilteredSearchITCase.class);
  /** Large enough that 0.5 % is more than k matches, small enough to embed in well under a minute. */
  private static final int CHUNKS = 2400;
  private static final int QUERIES = 40;
  private static final int K = 10;
  private static final long SEED = TestSeeds.derive("FilteredSearchITCase");
  private static final List<String> TENANTS = List.of("acme", "globex", "initech", "umbrella",
      "hooli", "stark", "wayne");

  @TempDir static Path root;
  private static Searcher searcher;
  private static Searcher luceneOnly;
  private static List<String> queries;
  private static final Map<String, String> TENANT_OF = new HashMap<>();

  /**
   * Each test skips (or, under -Dkiln.tests.require-shared=true, fails) with the reason when Cranfield
   * is absent: an assumption in {@code @BeforeAll} would hide the reason behind "0 tests run".
   */
  @BeforeEach
  void needsCranfield() {
    SharedDatasets.dataset("cranfield");
  }

  @BeforeAll
  static void build() throws IOException {
    Path cranfield = SharedDatasets.find("cranfield");
    if (cranfield == null) {
      return;
    }
    List<String> texts = sentences(cranfield.resolve("corpus.jsonl"), CHUNKS);
    Random random = new Random(SEED);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      order.add(i);
    }
    Collections.shuffle(order, random);
    int[] position = new int[texts.size()];
    for (int i = 0; i < order.size(); i++) {
      position[order.get(i)] = i;
    }
    List<List<Chunk>> shards = List.of(new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < texts.size(); i++) {
      Map<String, String> meta = new HashMap<>();
      // Exact selectivities: the first 50 % / 5 % / 0.5 % of a random permutation.
      meta.put("s50", position[i] < CHUNKS / 2 ? "y" : "n");
      meta.put("s5", position[i] < CHUNKS / 20 ? "y" : "n");
      meta.put("s05", position[i] < CHUNKS / 200 ? "y" : "n");
      String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
      meta.put("tenant", tenant);
      String doc = "s" + i;
      TENANT_OF.put(doc + "#0", tenant);
      shards.get(i % 2).add(SnapshotFixture.chunk(doc, 0, "", texts.get(i), meta));
    }
    long start = System.nanoTime();
    try (TextEmbedder embedder = TextEmbedder.open(
        ModelRegistry.resolve(SnapshotFixture.MODEL), 32, 2)) {
      new SnapshotFixture(embedder).shards(shards).write(root);
    }
    LOG.info("embedded and indexed {} Cranfield sentences in {} ms", texts.size(),
        (System.nanoTime() - start) / 1_000_000);
    searcher = Searcher.builder().root(root).options(SearchOptions.defaults()).build();
    luceneOnly = Searcher.builder().root(root).options(SearchOptions.defaults().withExactFilterRatio(0))
        .build();
    queries = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String line : Files.readAllLines(cranfield.resolve("queries.jsonl"))) {
      if (queries.size() < QUERIES && !line.isBlank()) {
        queries.add(json.readTree(line).get("text").asText());
      }
    }
  }

  /** Short distinct sentences (the first of each text is its title), until {@code n}. */
  private static List<String> sentences(Path corpus, int n) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<String> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    try (BufferedReader in = Files.newBufferedReader(corpus)) {
      String line;
      while ((line = in.readLine()) != null && out.size() < n) {
        JsonNode doc = json.readTree(line);
        String[] parts = doc.get("text").asText().split(" \\. ");
        for (int i = 0; i < parts.length && out.size() < n; i++) {
          String s = parts[i].strip();
          // Short sentences: embedding time grows with tokens, and recall does not need long ones.
          if (s.length() > 20 && s.length() <= 110 && seen.add(s)) {
            out.add(s);
          }
        }
      }
    }
    if (out.size() < n) {
      throw new IllegalStateException("corpus gave only " + out.size() + " sentences");
    }
    return out;
  }

  @AfterAll
  static void close() throws IOException {
    IOUtils.close(searcher, luceneOnly);
  }

  private static double recall(Searcher s, MetadataFilter filter) {
    double sum = 0;
    for (String q : queries) {
      float[] v = s.embedQuery(q);
      List<SearchHit> approx = s.dense(v, K, filter);
      List<SearchHit> exact = s.exactDense(v, K, filter);
      for (SearchHit h : approx) {
        assertTrue(filter.matches(h.metadata()), "hit " + h.chunkId() + " breaks filter " + filter);
      }
      Set<String> truth = new HashSet<>();
      exact.forEach(h -> truth.add(h.chunkId()));
      long found = approx.stream().filter(h -> truth.contains(h.chunkId())).count();
      sum += truth.isEmpty() ? 1 : (double) found / truth.size();
    }
    return sum / queries.size();
  }

  @Test
  void filteredAnnRecallAtTenIsAtLeast95PercentAtEverySelectivity() {
    for (String key : List.of("s50", "s5", "s05")) {
      MetadataFilter filter = MetadataFilter.parse(List.of(key + "=y"));
      double configured = recall(searcher, filter);
      double lucene = recall(luceneOnly, filter);
      LOG.info("filter {}: recall@{} vs exact filtered search = {} (Kiln default), {} (Lucene's own choice)",
          filter, K, configured, lucene);
      assertTrue(configured >= 0.95, filter + ": recall@10 " + configured);
      assertTrue(lucene >= 0.95, filter + " (Lucene only): recall@10 " + lucene);
    }
  }

  @Test
  void theExactPathIsTakenOnlyForVerySelectiveFilters() {
    int total = searcher.chunkCount();
    double ratio = SearchOptions.DEFAULT_EXACT_FILTER_RATIO;
    MetadataFilter any = MetadataFilter.parse(List.of("s5=y"));
    assertEquals(FilteredVectorSearch.Path.FILTERED_ANN,
        FilteredVectorSearch.choose(any.toQuery(), total / 2, total, ratio));
    assertEquals(FilteredVectorSearch.Path.FILTERED_ANN,
        FilteredVectorSearch.choose(any.toQuery(), total / 20, total, ratio));
    assertEquals(FilteredVectorSearch.Path.EXACT,
        FilteredVectorSearch.choose(any.toQuery(), total / 200, total, ratio));
    assertEquals(FilteredVectorSearch.Path.FILTERED_ANN,
        FilteredVectorSearch.choose(any.toQuery(), total / 200, total, 0));
  }

  @Test
  void aFilterMatchingNothingFindsNothing() {
    MetadataFilter none = MetadataFilter.parse(List.of("tenant=nobody"));
    for (SearchMode mode : SearchMode.values()) {
      var response = searcher.search(new SearchRequest("shock wave boundary layer", mode, K, none));
      assertTrue(response.results().isEmpty(), mode.label());
      assertEquals("no relevant context", response.reason());
    }
  }

  /** Property: whatever the query, mode, k or tenant, no chunk of another tenant comes back. */
  @Test
  void randomQueriesWithATenantFilterNeverReturnAnotherTenantsChunk() {
    Random random = new Random(SEED + 1);
    List<String> words = new ArrayList<>();
    for (String q : queries) {
      words.addAll(List.of(q.split("\\s+")));
    }
    int returned = 0;
    for (int i = 0; i < 150; i++) {
      String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
      StringBuilder q = new StringBuilder();
      for (int w = 1 + random.nextInt(8); w > 0; w--) {
        q.append(words.get(random.nextInt(words.size()))).append(' ');
      }
      SearchMode mode = SearchMode.values()[random.nextInt(SearchMode.values().length)];
      int k = 1 + random.nextInt(random.nextBoolean() ? 20 : 1000);
      Searcher s = random.nextBoolean() ? searcher : luceneOnly;
      MetadataFilter filter = MetadataFilter.parse(List.of("tenant=" + tenant));
      List<SearchHit> hits = s.search(new SearchRequest(q.toString(), mode, k, filter)).results();
      if (random.nextInt(4) == 0) {
        // Random unit vectors reach parts of the graph no text query does.
        float[] v = new float[384];
        double norm = 0;
        for (int d = 0; d < v.length; d++) {
          v[d] = (float) random.nextGaussian();
          norm += v[d] * v[d];
        }
        for (int d = 0; d < v.length; d++) {
          v[d] /= (float) Math.sqrt(norm);
        }
        hits = new ArrayList<>(hits);
        hits.addAll(s.dense(v, k, filter));
      }
      for (SearchHit h : hits) {
        assertEquals(tenant, h.metadata().get("tenant"), "query '" + q + "' " + mode + " k=" + k);
        assertEquals(tenant, TENANT_OF.get(h.chunkId()), h.chunkId());
      }
      returned += hits.size();
    }
    assertFalse(returned == 0, "the property must be exercised on real hits");
  }
}
