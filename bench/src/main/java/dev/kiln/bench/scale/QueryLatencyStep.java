package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.EmbedDevice;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Child step of {@link QueryLatencyBench}, one fresh JVM: latency as a user of the searcher feels it,
 * the query's embedding included. Opens the snapshot as {@code kiln serve} does (default options, the
 * query model preloaded beside the open), times the first query (cold), then after a warm-up round
 * times, per query text and single-threaded: the whole hybrid search from the text ({@code total}), the
 * query embedding alone ({@code embed}) and the hybrid search with that vector handed in ({@code
 * search}). With {@code cache} 0 every request pays the model; with a cache the rounds after the warm-up
 * are the repeated-query case (every vector a hit). With {@code probe} the step then times the query
 * model outside the searcher: the tokenizer alone and ONNX Runtime session variants, alternated per
 * round.
 *
 * <p>Arguments: result file, snapshots root, queries.json (its {@code texts}: real query texts), query
 * cache size, rounds, probe (true/false), most distinct texts used (the first; the probe uses at most 60).
 */
public final class QueryLatencyStep {
  private static final int K = 10;
  /** The probe's texts: its four model instances each embed them twice, which a loaded machine pays for. */
  private static final int PROBE_TEXTS = 60;

  private QueryLatencyStep() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[1]);
    // Distinct texts in file order: a repeated text would be a cache hit, which the cache-off step must not have.
    List<String> texts = new ArrayList<>(new LinkedHashSet<>(
        QueryFile.texts(new ObjectMapper().readTree(Path.of(args[2]).toFile()))));
    int cache = Integer.parseInt(args[3]);
    int rounds = Integer.parseInt(args[4]);
    boolean probe = Boolean.parseBoolean(args[5]);
    int max = Integer.parseInt(args[6]);
    if (texts.size() > max) {
      texts = new ArrayList<>(texts.subList(0, max));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("load_average", ScaleBench.loadAverage());
    out.put("cpus", Runtime.getRuntime().availableProcessors());
    out.put("jvm", Runtime.version().toString());
    out.put("query_cache", cache);
    out.put("distinct_queries", texts.size());
    out.put("rounds", rounds);
    long t0 = System.nanoTime();
    SearchOptions options = SearchOptions.defaults().withQueryCache(cache);
    try (Searcher s = Searcher.builder().root(root).options(options).preloadQueryModel(true).build()) {
      out.put("open_ms", (System.nanoTime() - t0) / 1e6);
      out.put("model", s.manifest().model().source());
      out.put("chunks", s.manifest().totalChunks());
      // Cold: the first query of a fresh JVM (it may wait for the preloading model), the page cache as found.
      long a = System.nanoTime();
      s.search(SearchRequest.of(texts.get(0), SearchMode.HYBRID, K));
      out.put("cold_first_query_ms", (System.nanoTime() - a) / 1e6);
      out.put("cold_open_plus_first_query_ms", (System.nanoTime() - t0) / 1e6);
      for (String text : texts) { // warm-up round (and, with a cache, fills it)
        s.search(SearchRequest.of(text, SearchMode.HYBRID, K));
      }
      Latencies total = new Latencies(texts.size() * rounds);
      Latencies embed = new Latencies(texts.size() * rounds);
      Latencies search = new Latencies(texts.size() * rounds);
      for (int r = 0; r < rounds; r++) {
        for (String text : texts) {
          SearchRequest request = SearchRequest.of(text, SearchMode.HYBRID, K);
          long b = System.nanoTime();
          s.search(request);
          long c = System.nanoTime();
          float[] v = s.embedQuery(text);
          long d = System.nanoTime();
          s.search(request, v);
          long e = System.nanoTime();
          total.add(c - b);
          embed.add(d - c);
          search.add(e - d);
        }
      }
      out.put("total", total.report());
      out.put("embed", embed.report());
      out.put("search_vector_given", search.report());
      out.put("query_cache_hits", s.queryCacheHits());
      out.put("query_cache_misses", s.queryCacheMisses());
      if (probe) {
        out.put("probe", probe(ModelRegistry.resolve(s.manifest().model().source()),
            texts.subList(0, Math.min(PROBE_TEXTS, texts.size())), rounds));
      }
    }
    out.put("load_average_end", ScaleBench.loadAverage());
    ChildRun.write(args[0], out);
  }

  /**
   * The query model outside the searcher, one query at a time as the searcher embeds: the tokenizer
   * alone, then session variants of ONNX Runtime alternated within each round (so load drifts hit each
   * alike): the searcher's (1 intra-op thread, ONNX Runtime's default graph optimisation), the graph
   * optimisations off and basic only (how much the default's fusion buys), and 2 intra-op threads (one
   * query spread over two cores).
   */
  private static Map<String, Object> probe(ModelSpec spec, List<String> texts, int rounds) {
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, TextEmbedder> variants = new LinkedHashMap<>();
    try {
      variants.put("default_1_thread", TextEmbedder.open(spec, 1, 1));
      variants.put("opt_basic", TextEmbedder.open(spec, 1, 1, EmbedDevice.CPU, Map.of("optLevel", "BASIC_OPT")));
      variants.put("opt_none", TextEmbedder.open(spec, 1, 1, EmbedDevice.CPU, Map.of("optLevel", "NO_OPT")));
      variants.put("intra_op_2_threads", TextEmbedder.open(spec, 1, 2));
      TextEmbedder first = variants.values().iterator().next();
      for (TextEmbedder e : variants.values()) { // warm-up
        for (String t : texts) {
          e.embedQuery(t);
        }
      }
      Latencies tokenizer = new Latencies(texts.size() * rounds);
      Map<String, Latencies> byVariant = new LinkedHashMap<>();
      variants.keySet().forEach(k -> byVariant.put(k, new Latencies(texts.size() * rounds)));
      long tokens = 0;
      for (int r = 0; r < rounds; r++) {
        for (String t : texts) {
          String prefixed = spec.queryPrefix() + t;
          long a = System.nanoTime();
          tokens += first.tokenizer().countTokens(prefixed);
          tokenizer.add(System.nanoTime() - a);
          for (Map.Entry<String, TextEmbedder> v : variants.entrySet()) {
            long b = System.nanoTime();
            v.getValue().embedQuery(t);
            byVariant.get(v.getKey()).add(System.nanoTime() - b);
          }
        }
      }
      out.put("mean_tokens", (double) tokens / (texts.size() * rounds));
      out.put("tokenizer", tokenizer.report());
      byVariant.forEach((k, l) -> out.put("embed_" + k, l.report()));
    } finally {
      variants.values().forEach(TextEmbedder::close);
    }
    return out;
  }
}
