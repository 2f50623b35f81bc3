package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Two builds of the searcher in one JVM, query by query: each jar with the same dependencies in a
 * class loader of its own, each opening the same kept scale-benchmark snapshot, and every query run
 * by both, which goes first alternating. Latencies of separate runs drift by ±10 % on a shared
 * machine within minutes; taken in turns, both sides see the same drift, so a few per cent show.
 * Hybrid with the query vector given, as {@link HybridLatency} times it; a digest of each side's
 * chunk ids shows whether they return the same results.
 *
 * <pre>java -cp … dev.kiln.bench.scale.SearcherAB SNAPSHOTS QUERIES.json ROUNDS JAR_A JAR_B DEPENDENCIES</pre>
 *
 * DEPENDENCIES is the searcher's class path without the searcher jar (a path list, as {@code -cp}
 * takes it). After a warm-up round, ROUNDS timed rounds; each prints both sides' p50 and mean, and
 * the last line the totals and B's ratio to A.
 */
public final class SearcherAB {
  private static final int K = 10;

  private SearcherAB() {}

  /** One side: a searcher of one jar, driven through its public API by reflection. */
  private static final class Side implements AutoCloseable {
    final URLClassLoader loader;
    final Object searcher;
    final Method of;
    final Method search;
    final Method results;
    final Method chunkId;
    final Object hybrid;
    final Latencies all;
    final MessageDigest digest = MessageDigest.getInstance("SHA-256");

    Side(String name, Path jar, List<URL> dependencies, Path snapshots, int capacity) throws Exception {
      List<URL> urls = new ArrayList<>();
      urls.add(jar.toUri().toURL());
      urls.addAll(dependencies);
      loader = new URLClassLoader(name, urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
      Class<?> searcherClass = loader.loadClass("dev.kiln.search.Searcher");
      Object builder = searcherClass.getMethod("builder").invoke(null);
      builder = builder.getClass().getMethod("root", Path.class).invoke(builder, snapshots);
      searcher = builder.getClass().getMethod("build").invoke(builder);
      Class<?> mode = loader.loadClass("dev.kiln.search.SearchMode");
      Class<?> request = loader.loadClass("dev.kiln.search.SearchRequest");
      hybrid = mode.getField("HYBRID").get(null);
      of = request.getMethod("of", String.class, mode, int.class);
      search = searcherClass.getMethod("search", request, float[].class);
      results = loader.loadClass("dev.kiln.search.SearchResponse").getMethod("results");
      chunkId = loader.loadClass("dev.kiln.search.SearchHit").getMethod("chunkId");
      all = new Latencies(capacity);
    }

    /** One query, timed; its chunk ids go into the digest when {@code record}. */
    long run(String text, float[] vector, boolean record) throws Exception {
      Object r = of.invoke(null, text, hybrid, K);
      long t0 = System.nanoTime();
      Object response = search.invoke(searcher, r, vector);
      long t = System.nanoTime() - t0;
      if (record) {
        for (Object hit : (List<?>) results.invoke(response)) {
          digest.update((chunkId.invoke(hit) + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
      return t;
    }

    @Override
    public void close() throws Exception {
      ((AutoCloseable) searcher).close();
      loader.close();
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      throw new IllegalArgumentException("usage: SearcherAB SNAPSHOTS QUERIES.json ROUNDS JAR_A JAR_B DEPENDENCIES");
    }
    JsonNode q = new ObjectMapper().readTree(Path.of(args[1]).toFile());
    List<String> texts = QueryFile.texts(q);
    List<float[]> vectors = QueryFile.vectors(q);
    int rounds = Integer.parseInt(args[2]);
    List<URL> dependencies = new ArrayList<>();
    for (String p : args[5].split(File.pathSeparator)) {
      if (!p.isBlank()) {
        dependencies.add(Path.of(p).toUri().toURL());
      }
    }
    int n = texts.size();
    Path snapshots = Path.of(args[0]);
    try (Side a = new Side("A", Path.of(args[3]), dependencies, snapshots, n * rounds);
        Side b = new Side("B", Path.of(args[4]), dependencies, snapshots, n * rounds)) {
      for (int i = 0; i < n; i++) { // warm-up, both sides
        a.run(texts.get(i), vectors.get(i), false);
        b.run(texts.get(i), vectors.get(i), false);
      }
      for (int r = 0; r < rounds; r++) {
        Latencies ra = new Latencies(n);
        Latencies rb = new Latencies(n);
        boolean last = r == rounds - 1;
        for (int i = 0; i < n; i++) {
          boolean aFirst = (i + r) % 2 == 0;
          Side first = aFirst ? a : b;
          Side second = aFirst ? b : a;
          long t1 = first.run(texts.get(i), vectors.get(i), last);
          long t2 = second.run(texts.get(i), vectors.get(i), last);
          (aFirst ? ra : rb).add(t1);
          (aFirst ? rb : ra).add(t2);
          first.all.add(t1);
          second.all.add(t2);
        }
        System.out.printf("round %d: A p50 %.2f mean %.2f ms | B p50 %.2f mean %.2f ms%n", r + 1,
            ra.percentileMs(50), mean(ra), rb.percentileMs(50), mean(rb));
      }
      String da = HexFormat.of().formatHex(a.digest.digest()).substring(0, 16);
      String db = HexFormat.of().formatHex(b.digest.digest()).substring(0, 16);
      System.out.printf("A: p50 %.2f p90 %.2f p99 %.2f mean %.2f ms | B: p50 %.2f p90 %.2f p99 %.2f mean %.2f ms"
          + " | B/A p50 %.3f mean %.3f | results %s%n",
          a.all.percentileMs(50), a.all.percentileMs(90), a.all.percentileMs(99), mean(a.all),
          b.all.percentileMs(50), b.all.percentileMs(90), b.all.percentileMs(99), mean(b.all),
          b.all.percentileMs(50) / a.all.percentileMs(50), mean(b.all) / mean(a.all),
          da.equals(db) ? "the same (" + da + ")" : "differ (A " + da + ", B " + db + ")");
    }
  }

  private static double mean(Latencies l) {
    return ((Number) l.report().get("mean_ms")).doubleValue();
  }
}
