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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.IOUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hybrid's legs run side by side on the searcher's pool while it has fewer slices than pool threads,
 * a busy pool only makes them take turns, and a searcher whose slices fill the pool runs them in turn.
 */
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
  @Timeout(30)
  void legsTakeTurnsInTheCallingThreadOnceTheSearchersSlicesFillThePool() throws Exception {
    // One slice per segment, at least as many segments as the pool has threads: each leg's own
    // segment tasks already fill the pool, so the legs run one after the other, in order.
    int segments = Math.max(2, SearchThreads.size());
    List<Directory> dirs = new ArrayList<>();
    List<DirectoryReader> readers = new ArrayList<>();
    try {
      for (int i = 0; i < segments; i++) {
        Directory dir = new ByteBuffersDirectory();
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
          w.addDocument(new Document());
        }
        dirs.add(dir);
        readers.add(DirectoryReader.open(dir));
      }
      SnapshotIndexSearcher sliced = new SnapshotIndexSearcher(
          new MultiReader(readers.toArray(new DirectoryReader[0]), false), pool);
      assertEquals(segments, sliced.getSlices().length);
      List<String> events = Collections.synchronizedList(new ArrayList<>());
      Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
      CountDownLatch secondStarted = new CountDownLatch(1);
      Retriever first = leg(() -> {
        ranOn.add(Thread.currentThread());
        events.add("first start");
        // Side by side, an idle pool thread starts the second leg meanwhile; in turn it cannot.
        events.add(secondStarted.await(200, TimeUnit.MILLISECONDS) ? "second started meanwhile" : "first end");
        return true;
      }, 1);
      Retriever second = leg(() -> {
        ranOn.add(Thread.currentThread());
        events.add("second start");
        secondStarted.countDown();
        return true;
      }, 2);
      List<Candidate> fused = hybrid(sliced, first, second).retrieve(QUERY, 10, MetadataFilter.none());
      assertEquals(Set.of(1, 2), Set.copyOf(fused.stream().map(Candidate::doc).toList()));
      assertEquals(List.of("first start", "first end", "second start"), events);
      assertEquals(Set.of(Thread.currentThread()), ranOn);
    } finally {
      IOUtils.close(readers);
      IOUtils.close(dirs);
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
        new MinMaxBlend(0.5), LexicalFeedback.OFF, FeedbackScope.CANDIDATES, text -> Map.of(),
        term -> 0);
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
