package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.fusion.MinMaxBlend;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.RewrittenQuery;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hybrid's legs run side by side on the searcher's pool, and a busy pool only makes them take turns. */
class HybridRetrieverConcurrencyTest {
  private static final RetrieverQuery QUERY = new RetrieverQuery("q", RewrittenQuery.of("q", Map.of("q", 1)),
      new float[] {1f});

  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  @Timeout(30)
  void legsRunAtTheSameTime() throws IOException {
    // Each leg waits for the other: run in turn, the first would time out and find nothing.
    CountDownLatch both = new CountDownLatch(2);
    Retriever waiting = leg(() -> {
      both.countDown();
      return both.await(10, TimeUnit.SECONDS);
    }, 1);
    Retriever waitingToo = leg(() -> {
      both.countDown();
      return both.await(10, TimeUnit.SECONDS);
    }, 2);
    List<Candidate> fused = hybrid(new IndexSearcher(new MultiReader(), pool), waiting, waitingToo)
        .retrieve(QUERY, 10, MetadataFilter.none());
    assertEquals(Set.of(1, 2), Set.copyOf(fused.stream().map(Candidate::doc).toList()));
  }

  @Test
  @Timeout(30)
  void aSaturatedPoolRunsTheLegsInTheCallingThread() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch busy = new CountDownLatch(2);
    for (int i = 0; i < 2; i++) {
      pool.execute(() -> {
        busy.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    try {
      busy.await();
      Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
      Retriever recording = leg(() -> ranOn.add(Thread.currentThread()) || true, 1);
      Retriever recordingToo = leg(() -> ranOn.add(Thread.currentThread()) || true, 2);
      List<Candidate> fused = hybrid(new IndexSearcher(new MultiReader(), pool), recording, recordingToo)
          .retrieve(QUERY, 10, MetadataFilter.none());
      assertEquals(2, fused.size());
      assertEquals(Set.of(Thread.currentThread()), ranOn, "both legs ran in the calling thread");
    } finally {
      release.countDown();
    }
  }

  @Test
  void aFailingLegFailsTheSearchWithItsOwnException() throws IOException {
    IOException broken = new IOException("shard unreadable");
    Retriever failing = new FixedLeg(() -> {
      throw broken;
    }, 1);
    Retriever fine = leg(() -> true, 2);
    HybridRetriever hybrid = hybrid(new IndexSearcher(new MultiReader(), pool), fine, failing);
    assertSame(broken, assertThrows(IOException.class, () -> hybrid.retrieve(QUERY, 10, MetadataFilter.none())));
  }

  private static HybridRetriever hybrid(IndexSearcher searcher, Retriever a, Retriever b) {
    return new HybridRetriever(searcher, List.of(new HybridRetriever.Leg(a, 10), new HybridRetriever.Leg(b, 10)),
        new MinMaxBlend(0.5), LexicalFeedback.OFF, FeedbackScope.CANDIDATES, text -> Map.of());
  }

  /** A leg that finds {@code doc} when {@code found} says so, nothing otherwise. */
  private static Retriever leg(Condition found, int doc) {
    return new FixedLeg(() -> found.holds() ? List.of(new Candidate(doc, 1.0)) : List.of(), doc);
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  interface Result {
    List<Candidate> get() throws Exception;
  }

  private record FixedLeg(Result result, int doc) implements Retriever {
    @Override
    public String name() {
      return "leg" + doc;
    }

    @Override
    public boolean usesTerms() {
      return false;
    }

    @Override
    public boolean usesVector() {
      return true;
    }

    @Override
    public List<Candidate> retrieve(RetrieverQuery query, int k, MetadataFilter filter) throws IOException {
      try {
        return result.get();
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
