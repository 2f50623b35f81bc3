package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/** The human-readable end of a scale run: the headline numbers against the targets of issue 17. */
final class ScaleSummary {
  private ScaleSummary() {}

  static void print(Map<String, Object> result, PrintStream out) {
    JsonNode r = new ObjectMapper().valueToTree(result);
    JsonNode k = r.path("kiln_build");
    JsonNode s = r.path("search");
    JsonNode lat = s.path("latency");
    line(out, "chunks", "%,d", r.path("chunks").asLong());
    line(out, "kiln build wall", "%.1f s (peak heap %.0f MB, live after GC %.0f MB, RSS %.0f MB)",
        k.path("wall_s").asDouble(), k.path("peak_heap_mb").asDouble(), k.path("peak_live_heap_after_gc_mb").asDouble(),
        k.path("peak_rss_mb").asDouble());
    for (Map.Entry<String, JsonNode> e : k.path("counters").properties()) {
      if (e.getKey().contains("busy") || e.getKey().contains("wall") || e.getKey().contains("publish")) {
        line(out, "  " + e.getKey(), "%s", e.getValue().asText());
      }
    }
    if (r.has("raw_lucene_build")) {
      line(out, "raw lucene wall", "%.1f s (peak heap %.0f MB) -> kiln speed %.2fx raw (target >= 0.9)",
          r.path("raw_lucene_build").path("wall_s").asDouble(), r.path("raw_lucene_build").path("peak_heap_mb").asDouble(),
          r.path("kiln_speed_vs_raw").asDouble());
    }
    line(out, "snapshot bytes", "%,d (shards %,d)", k.path("snapshot_bytes").asLong(), k.path("shard_bytes").asLong());
    line(out, "open", "%.3f s (cold JVM %.3f s; target <= 1 s)", s.path("open_s").asDouble(),
        s.path("open_cold_jvm_s").asDouble());
    for (String mode : new String[] {"bm25", "dense", "dense_tenant_filter", "hybrid", "hybrid_minus_embedding",
        "hybrid_vector_given", "hybrid_no_feedback_vector_given", "query_embedding"}) {
      line(out, "p50/p99 " + mode, "%.2f / %.2f ms", lat.path(mode).path("p50_ms").asDouble(),
          lat.path(mode).path("p99_ms").asDouble());
    }
    JsonNode steady = s.path("latency_steady");
    for (String mode : new String[] {"bm25", "dense", "hybrid_vector_given"}) {
      if (steady.has(mode)) {
        line(out, "p50/p99 steady " + mode, "%.2f / %.2f ms%s", steady.path(mode).path("p50_ms").asDouble(),
            steady.path(mode).path("p99_ms").asDouble(),
            mode.startsWith("hybrid") ? " (target <= 5 / <= 20 ms)" : "");
      }
    }
    line(out, "dense recall@10", "%.4f (target >= 0.95); first 10 of top 100: %.4f (p50 %.2f ms)",
        s.path("dense_recall_at_10").asDouble(), s.path("dense_recall_at_10_of_top100").asDouble(),
        lat.path("dense_top100").path("p50_ms").asDouble());
    for (Map.Entry<String, JsonNode> e : s.path("qps").properties()) {
      line(out, "qps @" + e.getKey() + " threads", "bm25 %.0f, dense %.0f, hybrid %.0f",
          e.getValue().path("bm25").asDouble(), e.getValue().path("dense").asDouble(),
          e.getValue().path("hybrid").asDouble());
    }
    line(out, "searcher memory", "peak heap %.0f MB, live after GC %.0f MB, RSS %.0f MB",
        s.path("peak_heap_mb").asDouble(), s.path("peak_live_heap_after_gc_mb").asDouble(), s.path("peak_rss_mb").asDouble());
    if (r.has("rebuild")) {
      line(out, "rebuild (1% changed)", "%.1f s = %.2f of the full build (target <= 0.05)",
          r.path("rebuild").path("wall_s").asDouble(), r.path("rebuild_vs_full").asDouble());
    }
    if (r.has("rebuild_aot")) {
      line(out, "rebuild, JVM AOT cache", "%.1f s = %.3f of the full build (training run %.1f s, cache %,d bytes)",
          r.path("rebuild_aot").path("wall_s").asDouble(), r.path("rebuild_aot_vs_full").asDouble(),
          r.path("rebuild_aot_training_process_s").asDouble(), r.path("aot_cache_bytes").asLong());
    } else if (r.has("rebuild_aot_error")) {
      line(out, "rebuild, JVM AOT cache", "failed: %s", r.path("rebuild_aot_error").asText());
    }
    if (r.has("rebuild_one_file")) {
      line(out, "rebuild, 1% changed in one file", "%.1f s = %.3f of the full build (%s records of unchanged files not read)",
          r.path("rebuild_one_file").path("wall_s").asDouble(), r.path("rebuild_one_file_vs_full").asDouble(),
          r.path("rebuild_one_file").path("counters").path("records of unchanged files (not read)").asText("?"));
    }
    for (String name : new String[] {"rebuild", "rebuild_aot"}) {
      if (r.has(name + "_walls_s")) {
        line(out, name.replace('_', ' ') + ", median", "%.1f s = %.3f of the full build (runs %s s)",
            r.path(name + "_median_s").asDouble(), r.path(name + "_median_vs_full").asDouble(),
            r.path(name + "_walls_s").toString());
      }
    }
  }

  private static void line(PrintStream out, String name, String format, Object... args) {
    out.printf(Locale.ROOT, "%-32s %s%n", name, String.format(Locale.ROOT, format, args));
  }
}
