package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.testing.TestSeeds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CandidateScorer} against Lucene scoring the same disjunction over the whole index: on any
 * candidate set, the same docs in the same order with the same scores (up to the last place of a
 * float, the order the clauses are summed in), over several segments searched on a pool.
 */
@ExtendWith(TestSeeds.class)
class CandidateScorerTest {
  private static final List<String> WORDS = List.of("ash", "basalt", "crater", "dune", "ember", "fjord", "geyser");
  private static final int DOCS = 400;
  private static Directory dir;
  private static DirectoryReader reader;
  private static ExecutorService pool;
  private static IndexSearcher searcher;

  @BeforeAll
  static void index() throws IOException {
    dir = new ByteBuffersDirectory();
    Random random = new Random(42);
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
      for (int i = 0; i < DOCS; i++) {
        StringBuilder text = new StringBuilder();
        int n = 1 + random.nextInt(12);
        for (int j = 0; j < n; j++) {
          // "geyser" only in the last segment: a term some leaves lack.
          int words = i < 300 ? WORDS.size() - 1 : WORDS.size();
          text.append(WORDS.get(random.nextInt(words))).append(' ');
        }
        Document d = new Document();
        d.add(new TextField("text", text.toString(), Field.Store.NO));
        w.addDocument(d);
        if (i % 100 == 99) {
          w.commit(); // four segments
        }
      }
    }
    reader = DirectoryReader.open(dir);
    pool = Executors.newFixedThreadPool(2);
    searcher = new IndexSearcher(reader, pool);
  }

  @AfterAll
  static void close() throws IOException {
    reader.close();
    dir.close();
    pool.shutdown();
  }

  private static BooleanQuery query(Map<String, Float> weights) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    weights.forEach((t, w) -> b.add(w == 1f ? new TermQuery(new Term("text", t))
        : new BoostQuery(new TermQuery(new Term("text", t)), w), BooleanClause.Occur.SHOULD));
    return b.build();
  }

  /** What Lucene scores each doc over the whole index. */
  private static Map<Integer, Float> everyScore(BooleanQuery query) throws IOException {
    Map<Integer, Float> scores = new HashMap<>();
    for (ScoreDoc sd : searcher.search(query, DOCS).scoreDocs) {
      scores.put(sd.doc, sd.score);
    }
    return scores;
  }

  @RepeatedTest(20)
  void scoresTheCandidatesAsLuceneScoresTheWholeIndex(Random random) throws IOException {
    Map<String, Float> weights = new HashMap<>();
    for (String w : WORDS) {
      if (random.nextInt(3) > 0) {
        weights.put(w, random.nextBoolean() ? 1f : 0.05f + random.nextFloat());
      }
    }
    if (weights.isEmpty()) {
      weights.put("geyser", 1f);
    }
    BooleanQuery query = query(weights);
    int[] docs = random.ints(1 + random.nextInt(150), 0, DOCS + 10).toArray(); // duplicates, unsorted, some past the end
    int k = 1 + random.nextInt(60);
    Map<Integer, Float> all = everyScore(query);

    List<ScoreDoc> expected = new ArrayList<>();
    Arrays.stream(docs).distinct().filter(all::containsKey)
        .forEach(d -> expected.add(new ScoreDoc(d, all.get(d))));
    expected.sort(Comparator.comparingDouble((ScoreDoc sd) -> -sd.score).thenComparingInt(sd -> sd.doc));
    TopDocs top = CandidateScorer.top(searcher, query, docs, k);

    assertEquals(expected.size(), top.totalHits.value(), "candidates matched");
    assertEquals(Math.min(k, expected.size()), top.scoreDocs.length);
    for (int i = 0; i < top.scoreDocs.length; i++) {
      ScoreDoc got = top.scoreDocs[i];
      float want = all.get(got.doc);
      assertEquals(want, got.score, Math.ulp(want), "score of doc " + got.doc);
      // Same order as the oracle, up to ties within an ulp.
      float oracle = expected.get(i).score;
      assertEquals(oracle, got.score, 2 * Math.ulp(oracle), "rank " + i);
      if (i > 0) {
        ScoreDoc prev = top.scoreDocs[i - 1];
        assertTrue(prev.score > got.score || (prev.score == got.score && prev.doc < got.doc), "order at " + i);
      }
    }
  }

  @Test
  void candidatesThatMatchNoTermAreLeftOut() throws IOException {
    BooleanQuery query = query(Map.of("nowhere", 1f));
    TopDocs top = CandidateScorer.top(searcher, query, new int[] {0, 1, 2, 399}, 10);
    assertEquals(0, top.scoreDocs.length);
    assertEquals(0, top.totalHits.value());
  }

  @Test
  void onlyOptionalTermClausesCanBeScored() {
    BooleanQuery must = new BooleanQuery.Builder()
        .add(new TermQuery(new Term("text", "ash")), BooleanClause.Occur.MUST).build();
    assertThrows(IllegalArgumentException.class, () -> CandidateScorer.top(searcher, must, new int[] {1}, 5));
  }
}
