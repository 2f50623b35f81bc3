package dev.kiln.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.BuildConfig;
import dev.kiln.jobs.BuildJob;
import dev.kiln.jobs.SnapshotBuilder;
import dev.kiln.snapshot.LocalFiles;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * End-to-end build time as the corpus grows (1×, 2×, 4×: the real corpus repeated with changed ids)
 * at parallelism 1 and 2, with the busy time of each stage, so a reader sees how build time grows and
 * where it goes. Arguments: corpus.jsonl, output folder. Each build is one fresh mini-cluster.
 */
public final class E2eBuildBenchmark {
  private E2eBuildBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path corpus = Path.of(args[0]);
    Path out = Path.of(args.length > 1 ? args[1] : "target/kiln-report");
    int[] sizes = {1, 2, 4};
    int[] parallelisms = {1, 2};
    Path work = Files.createTempDirectory("kiln-e2e");
    List<Map<String, Object>> rows = new ArrayList<>();
    try {
      for (int size : sizes) {
        Path expanded = expand(corpus, size, work.resolve("corpus-" + size + "x.jsonl"));
        for (int p : parallelisms) {
          BuildConfig c = BuildConfig.load(Path.of(System.getProperty("kiln.home", ".")).resolve("configs/build.yaml"));
          c.corpus = List.of(expanded.toString());
          c.snapshots = work.resolve("snap-" + size + "-" + p).toString();
          c.parallelism = p;
          c.shards = 2;
          long t0 = System.nanoTime();
          SnapshotBuilder.BuildReport r = new SnapshotBuilder(c, new PrintStream(System.err, true, StandardCharsets.UTF_8))
              .build(BuildJob.localEnvironment(p));
          double wall = (System.nanoTime() - t0) / 1e9;
          Map<String, String> k = r.counters().asMap();
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("size", size);
          row.put("parallelism", p);
          row.put("chunks", r.manifest().totalChunks());
          row.put("wall_s", wall);
          row.put("embed_busy_s", seconds(k.get("embed busy")));
          row.put("write_busy_s", seconds(k.get("shard write busy")));
          row.put("chunk_busy_s", seconds(k.get("chunk busy")));
          rows.add(row);
          System.out.printf(Locale.ROOT, "%d× p%d: %d chunks, %.1f s wall, embed busy %.1f s, write busy %.1f s%n",
              size, p, r.manifest().totalChunks(), wall, seconds(k.get("embed busy")), seconds(k.get("shard write busy")));
        }
      }
    } finally {
      LocalFiles.deleteTree(work);
    }
    Files.createDirectories(out);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("corpus", corpus.toString());
    doc.put("rows", rows);
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(out.resolve("e2e.json").toFile(), doc);
  }

  static double seconds(String counter) {
    return counter == null ? Double.NaN : Double.parseDouble(counter.replace(" s", "").replace(",", ""));
  }

  /** The corpus {@code times} times over; copies get {@code ~k} id suffixes so every id stays unique. */
  static Path expand(Path corpus, int times, Path target) throws Exception {
    ObjectMapper json = new ObjectMapper();
    try (BufferedWriter w = Files.newBufferedWriter(target)) {
      for (int copy = 0; copy < times; copy++) {
        try (BufferedReader r = Files.newBufferedReader(corpus)) {
          String line;
          while ((line = r.readLine()) != null) {
            if (line.isBlank()) {
              continue;
            }
            var node = (ObjectNode) json.readTree(line);
            if (copy > 0) {
              node.put("_id", node.get("_id").asText() + "~" + copy);
            }
            w.write(json.writeValueAsString(node));
            w.newLine();
          }
        }
      }
    }
    return target;
  }
}
