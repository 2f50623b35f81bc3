package dev.kiln.search.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.Chunk;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.search.rewrite.QueryRewriter;
import dev.kiln.search.rewrite.RewriteContext;
import dev.kiln.search.rewrite.Rm3Rewriter;
import dev.kiln.testing.TestSeeds;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.lucene.util.IOUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Range filters tested for leaks the way the tenant filter is: a real snapshot of random chunks with
 * random numeric and date metadata (integers, decimals, dates and date-times with offsets, some values
 * missing or unparseable), random range queries in every mode and on every dense path. The expected
 * matches come from an oracle of this test's own — the generated values compared with the bounds in
 * exact arithmetic — not from the code under test. Every hit must satisfy the filter; BM25 and exact
 * dense search must return exactly the top k of a full scan restricted to the oracle's matches.
 */
@ExtendWith(TestSeeds.class)
class RangeFilterLeakTest {
  private static final Logger LOG = LoggerFactory.getLogger(RangeFilterLeakTest.class);
  private static final long SEED = TestSeeds.derive("RangeFilterLeakTest");
  private static final int CHUNKS = 700;
  private static final int DIM = 384;
  private static final List<String> WORDS = List.of("shock", "wave", "boundary", "layer", "heat", "transfer",
      "wing", "flutter", "pressure", "nozzle", "supersonic", "flow", "laminar", "turbulent", "plate", "cone",
      "jet", "vortex", "drag", "lift", "slender", "body", "cylinder", "panel", "buckling", "shell", "creep",
      "stress", "mach", "number", "blunt", "nose", "ablation", "reentry", "orbit", "thrust");
  private static final List<String> TENANTS = List.of("acme", "globex", "initech");

  @TempDir static Path root;
  /** Kiln's default choice of dense path, Lucene's filtered HNSW always, exact search always. */
  private static Searcher byDefault;
  private static Searcher hnswOnly;
  private static Searcher exactOnly;
  private static Searcher withRm3;
  /** Texts the RM3 rewriter's first pass was given, per query. */
  private static final Map<String, List<String>> FEEDBACK = new ConcurrentHashMap<>();
  /** chunk id → the generated values: version (BigDecimal), score (BigDecimal), modified (epoch ms); absent = none. */
  private static final Map<String, Map<String, Object>> TRUTH = new HashMap<>();
  private static final Map<String, String> TEXT_TO_CHUNK = new HashMap<>();
  private static final Map<String, String> TENANT_OF = new HashMap<>();

  @BeforeAll
  static void build() throws IOException {
    Random random = new Random(SEED);
    List<List<Chunk>> shards = List.of(new ArrayList<>(), new ArrayList<>());
    Map<String, float[]> vectors = new HashMap<>();
    for (int i = 0; i < CHUNKS; i++) {
      Map<String, String> meta = new HashMap<>();
      Map<String, Object> truth = new HashMap<>();
      String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
      meta.put("tenant", tenant);
      int dice = random.nextInt(20);
      if (dice > 0) { // 1 in 20 has no version at all
        int v = random.nextInt(12);
        if (dice == 1) {
          meta.put("version", "v" + v); // not a number: exact-match only
        } else {
          meta.put("version", dice == 2 ? v + ".0" : Integer.toString(v));
          truth.put("version", new BigDecimal(v));
        }
      }
      if (random.nextInt(10) > 0) {
        BigDecimal s = BigDecimal.valueOf(random.nextInt(2001) - 1000, 2); // -10.00 .. 10.00
        meta.put("score", s.toPlainString());
        truth.put("score", s);
      }
      if (random.nextInt(10) > 0) {
        long day = LocalDate.of(2025, 6, 1).toEpochDay() + random.nextInt(400);
        long millis = day * 86_400_000L + (random.nextBoolean() ? 0 : random.nextInt(86_400_000));
        String text = switch (random.nextInt(4)) {
          case 0 -> LocalDate.ofEpochDay(Math.floorDiv(millis, 86_400_000L)).toString();
          case 1 -> Instant.ofEpochMilli(millis).toString();
          case 2 -> Instant.ofEpochMilli(millis).atOffset(ZoneOffset.ofHours(2)).toString();
          default -> "when the moon is full"; // unparseable: exact-match only
        };
        meta.put("modified", text);
        if (!text.startsWith("when")) {
          // A date alone is its start of day (what the text says, not the millis drawn).
          truth.put("modified", text.length() == 10 ? LocalDate.parse(text).toEpochDay() * 86_400_000L : millis);
        }
      }
      StringBuilder text = new StringBuilder("c" + i);
      for (int w = 6 + random.nextInt(14); w > 0; w--) {
        text.append(' ').append(WORDS.get(random.nextInt(WORDS.size())));
      }
      String doc = "d" + i;
      Chunk c = SnapshotFixture.chunk(doc, 0, "", text.toString(), meta);
      shards.get(i % 2).add(c);
      TRUTH.put(c.chunkId(), truth);
      TEXT_TO_CHUNK.put(c.text(), c.chunkId());
      TENANT_OF.put(c.chunkId(), tenant);
      vectors.put(c.chunkId(), unit(random));
    }
    SnapshotFixture.withVectors(c -> vectors.get(c.chunkId()))
        .rangeFields(Map.of("version", "long", "score", "double", "modified", "date"))
        .shards(shards).write(root);
    byDefault = Searcher.builder().root(root).options(SearchOptions.defaults()).build();
    hnswOnly = Searcher.builder().root(root).options(SearchOptions.defaults().withExactFilterRatio(0))
        .build();
    exactOnly = Searcher.builder().root(root).options(SearchOptions.defaults().withExactFilterRatio(1))
        .build();
    QueryRewriter recording = (query, ctx) -> new Rm3Rewriter().rewrite(query, new RewriteContext() {
      @Override
      public Map<String, Integer> analyze(String text) {
        return ctx.analyze(text);
      }

      @Override
      public List<String> firstPassTexts(String q, int n) {
        List<String> texts = ctx.firstPassTexts(q, n);
        FEEDBACK.put(query, texts);
        return texts;
      }
    });
    withRm3 = Searcher.builder().root(root).options(SearchOptions.defaults().withPrf(true))
        .rewriter(recording).build();
  }

  @AfterAll
  static void close() throws IOException {
    IOUtils.close(byDefault, hnswOnly, exactOnly, withRm3);
  }

  private static float[] unit(Random random) {
    float[] v = new float[DIM];
    double norm = 0;
    for (int d = 0; d < DIM; d++) {
      v[d] = (float) random.nextGaussian();
      norm += v[d] * v[d];
    }
    for (int d = 0; d < DIM; d++) {
      v[d] /= (float) Math.sqrt(norm);
    }
    return v;
  }

  /** A random range filter as text and the oracle of the chunks it admits. */
  private record Drawn(List<String> expressions, Predicate<String> admits) {}

  private static Drawn draw(Random random) {
    List<String> expressions = new ArrayList<>();
    Predicate<String> admits = id -> true;
    int conditions = 1 + random.nextInt(2);
    for (int i = 0; i < conditions; i++) {
      String key = List.of("version", "score", "modified").get(random.nextInt(3));
      String[] ops = random.nextInt(4) == 0 ? new String[] {">=", "<"} : new String[] {List.of(">", ">=", "<", "<=")
          .get(random.nextInt(4))};
      List<String> bounds = new ArrayList<>();
      for (String op : ops) {
        String literal = literal(key, random);
        bounds.add(literal);
        Predicate<String> one = oracle(key, op, literal);
        admits = admits.and(one);
        if (ops.length == 1) {
          expressions.add(key + op + literal);
        }
      }
      if (ops.length == 2) {
        // The compact form half of the time, two expressions otherwise.
        if (random.nextBoolean()) {
          expressions.add(bounds.get(0) + "<=" + key + "<" + bounds.get(1));
        } else {
          expressions.add(key + ">=" + bounds.get(0));
          expressions.add(key + "<" + bounds.get(1));
        }
      }
    }
    if (random.nextInt(3) == 0) {
      String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
      expressions.add("tenant=" + tenant);
      admits = admits.and(id -> TENANT_OF.get(id).equals(tenant));
    }
    return new Drawn(expressions, admits);
  }

  private static String literal(String key, Random random) {
    return switch (key) {
      case "version" -> random.nextBoolean() ? Integer.toString(random.nextInt(14) - 1)
          : BigDecimal.valueOf(random.nextInt(130) - 10, 1).toPlainString();
      case "score" -> BigDecimal.valueOf(random.nextInt(2201) - 1100, 2).toPlainString();
      default -> {
        long day = LocalDate.of(2025, 5, 20).toEpochDay() + random.nextInt(420);
        yield random.nextBoolean() ? LocalDate.ofEpochDay(day).toString()
            : Instant.ofEpochMilli(day * 86_400_000L + random.nextInt(86_400_000)).toString();
      }
    };
  }

  /** The chunks {@code key op literal} admits, by the generated values in exact arithmetic. */
  private static Predicate<String> oracle(String key, String op, String literal) {
    return id -> {
      Object value = TRUTH.get(id).get(key);
      if (value == null) {
        return false;
      }
      if (!key.equals("modified")) {
        int c = ((BigDecimal) value).compareTo(new BigDecimal(literal));
        return compare(op, c);
      }
      long t = (Long) value;
      if (literal.length() == 10) { // a whole day: [start, start of the next day)
        long start = LocalDate.parse(literal).toEpochDay() * 86_400_000L;
        long end = start + 86_400_000L;
        return switch (op) {
          case ">=" -> t >= start;
          case ">" -> t >= end;
          case "<=" -> t < end;
          default -> t < start;
        };
      }
      return compare(op, Long.compare(t, Instant.parse(literal).toEpochMilli()));
    };
  }

  private static boolean compare(String op, int c) {
    return switch (op) {
      case ">=" -> c >= 0;
      case ">" -> c > 0;
      case "<=" -> c <= 0;
      default -> c < 0;
    };
  }

  private static String query(Random random) {
    StringBuilder q = new StringBuilder();
    for (int w = 1 + random.nextInt(5); w > 0; w--) {
      q.append(WORDS.get(random.nextInt(WORDS.size()))).append(' ');
    }
    return q.toString().strip();
  }

  private static List<String> ids(List<SearchHit> hits) {
    return hits.stream().map(SearchHit::chunkId).toList();
  }

  /** Property: whatever the range, mode, dense path, k or query, every hit passes the filter. */
  @Test
  void everyHitInEveryModeAndOnEveryDensePathSatisfiesTheRange(Random random) {
    int returned = 0;
    for (int i = 0; i < 120; i++) {
      Drawn drawn = draw(random);
      MetadataFilter filter = MetadataFilter.parse(drawn.expressions());
      String q = query(random);
      float[] v = unit(random);
      int k = 1 + random.nextInt(random.nextBoolean() ? 20 : 300);
      for (Searcher s : List.of(byDefault, hnswOnly, exactOnly, withRm3)) {
        for (SearchMode mode : SearchMode.values()) {
          List<SearchHit> hits = s.search(new SearchRequest(q, mode, k, filter), v).results();
          for (SearchHit h : hits) {
            assertTrue(drawn.admits().test(h.chunkId()), h.chunkId() + " " + h.metadata() + " leaks through "
                + drawn.expressions() + " in " + mode + " k=" + k);
            assertTrue(s.bind(filter).matches(h.metadata()), "the filter's own check agrees for " + h.chunkId());
          }
          returned += hits.size();
        }
        for (SearchHit h : s.denseWithFeedback(v, k, filter)) {
          assertTrue(drawn.admits().test(h.chunkId()), h.chunkId() + " leaks through " + drawn.expressions()
              + " in the dense feedback pass");
        }
      }
    }
    LOG.info("range leak property: {} hits checked over 120 random ranges x 4 searchers x 3 modes", returned);
    assertTrue(returned > 1000, "the property must be exercised on real hits, got " + returned);
  }

  /** Completeness: BM25 and exact dense search under a range are the full scan's top k among its matches. */
  @Test
  void bm25AndExactDenseMissNothingAFullScanFinds(Random random) {
    int nonEmpty = 0;
    for (int i = 0; i < 80; i++) {
      Drawn drawn = draw(random);
      MetadataFilter filter = MetadataFilter.parse(drawn.expressions());
      String q = query(random);
      float[] v = unit(random);
      int k = 1 + random.nextInt(40);
      List<String> bm25 = ids(byDefault.bm25(q, k, filter));
      List<String> scan = ids(byDefault.bm25(q, CHUNKS, MetadataFilter.none())).stream()
          .filter(drawn.admits()).limit(k).toList();
      assertEquals(scan, bm25, "BM25 '" + q + "' under " + drawn.expressions());
      List<String> denseScan = ids(byDefault.exactDense(v, CHUNKS, MetadataFilter.none())).stream()
          .filter(drawn.admits()).limit(k).toList();
      assertEquals(denseScan, ids(byDefault.exactDense(v, k, filter)), "exact dense under " + drawn.expressions());
      assertEquals(denseScan, ids(exactOnly.dense(v, k, filter)),
          "the exact path of filtered dense search under " + drawn.expressions());
      nonEmpty += denseScan.isEmpty() ? 0 : 1;
    }
    LOG.info("range completeness: {} of 80 random ranges matched something; BM25 and exact dense equal the full scan",
        nonEmpty);
    assertTrue(nonEmpty > 40, "most drawn ranges must match something, " + nonEmpty + " did");
  }

  /** RM3's first pass, whose chunks expand the query, runs under the same range. */
  @Test
  void queryExpansionReadsOnlyChunksInTheRange(Random random) {
    int read = 0;
    for (int i = 0; i < 40; i++) {
      Drawn drawn = draw(random);
      String q = query(random) + " q" + i; // distinct, so each query's record is its own
      withRm3.search(new SearchRequest(q, SearchMode.BM25, 10, MetadataFilter.parse(drawn.expressions())));
      List<String> texts = FEEDBACK.get(q);
      assertFalse(texts == null, "the rewriter ran its first pass");
      for (String t : texts) {
        String id = TEXT_TO_CHUNK.get(t);
        assertTrue(drawn.admits().test(id), id + " fed RM3 under " + drawn.expressions());
      }
      read += texts.size();
    }
    assertTrue(read > 50, "expansion must read real chunks, read " + read);
  }

  @Test
  void aRangeOnAKeyThatIsNotRangeIndexedIsRefused() {
    MetadataFilter onTenant = MetadataFilter.parse(List.of("tenant>=b"));
    for (SearchMode mode : SearchMode.values()) {
      FilterException e = Assertions.assertThrows(FilterException.class,
          () -> byDefault.search(new SearchRequest("shock", mode, 5, onTenant), unit(new Random(1))));
      assertTrue(e.getMessage().contains("'tenant' is not range-indexed") && e.getMessage().contains("modified, score,"
          + " version"), e.getMessage());
    }
    assertTrue(Assertions.assertThrows(FilterException.class,
        () -> byDefault.bm25("shock", 5, MetadataFilter.parse(List.of("modified>=yesterday")))).getMessage()
        .contains("is not an ISO date"));
    Set<String> unparseable = Set.of("v3", "when the moon is full");
    assertTrue(byDefault.bm25("shock wave", CHUNKS, MetadataFilter.parse(List.of("version>=-1000000")))
        .stream().noneMatch(h -> unparseable.contains(h.metadata().get("version"))), "unparseable values match no range");
  }
}
