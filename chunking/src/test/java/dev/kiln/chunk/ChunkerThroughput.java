package dev.kiln.chunk;

import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Chunks per second of each strategy over a large Markdown tree, single-threaded, with the default
 * model's tokenizer. Not a test: run its {@code main} by hand (below). The tree is
 * the project's own Markdown (README, docs) plus seeded random pages with headings, lists, code and
 * tables, read from disk once; only chunking is timed. One warm-up pass per strategy lets the JIT
 * settle; the median of three timed passes is reported, because the machine is shared.
 * Ratios are to the window chunker's chunks per second.
 *
 * <p>Usage: {@code ChunkerThroughput [REPO_ROOT] [RANDOM_PAGES]}, from the repository root:
 *
 * <pre>
 * mvn -B -q -o test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/kiln-cp.txt -pl chunking -am
 * java -cp chunking/target/test-classes:chunking/target/classes:$(cat /tmp/kiln-cp.txt) \
 *   -Dai.djl.offline=true -Dkiln.cache.dir=target/kiln-cache dev.kiln.chunk.ChunkerThroughput . 1500
 * </pre>
 *
 * <p>Measured 2026-12-02 on the shared 2-core machine (load average about 13, so absolute rates are
 * low; the interleaved passes make the ratios the meaningful part), 415 documents / 1.4 MB, size 200,
 * overlap 32:
 *
 * <pre>
 * strategy                   chunks   chunks/s   docs/s   chunks/s vs window
 * window                      2,831        356       52   1.00
 * recursive                   3,362        461       57   1.30
 * markdown (structure)        3,522        383       45   1.08
 * markdown + parents (800)    3,530        268       31   0.75
 * </pre>
 */
public final class ChunkerThroughput {
  private ChunkerThroughput() {}

  public static void main(String[] args) throws IOException {
    Path repo = Path.of(args.length > 0 ? args[0] : ".");
    int randomPages = args.length > 1 ? Integer.parseInt(args[1]) : 400;
    List<Document> docs = new ArrayList<>();
    List<Path> markdown;
    try (Stream<Path> docsTree = Files.walk(repo.resolve("docs"))) {
      markdown = Stream.concat(Stream.of(repo.resolve("README.md")), docsTree)
          .filter(f -> f.toString().endsWith(".md")).sorted().toList();
    }
    for (Path p : markdown) {
      String text = Files.readString(p);
      for (int copy = 0; copy < 5; copy++) {
        docs.add(new Document(p.getFileName() + "#" + copy, "", text, Map.of(), "file:" + p, ContentType.MARKDOWN));
      }
    }
    for (int i = 0; i < randomPages; i++) {
      docs.add(new Document("random-" + i + ".md", "", new RandomDocuments(i).markdown(), Map.of(), "mem:",
          ContentType.MARKDOWN));
    }
    long chars = docs.stream().mapToLong(d -> d.text().length()).sum();
    System.out.printf(Locale.ROOT, "tree: %d Markdown documents, %.1f MB%n", docs.size(), chars / 1e6);
    List<String> strategies = List.of("window", "recursive", "markdown", "markdown+parents");
    try (ModelTokenizer tokenizer = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL))) {
      List<DocumentChunker> chunkers = new ArrayList<>();
      for (String strategy : strategies) {
        ChunkerConfig c = new ChunkerConfig();
        c.markdownStrategy = strategy.startsWith("markdown") ? "markdown" : strategy;
        c.parents.enabled = strategy.endsWith("+parents");
        chunkers.add(new DocumentChunker(tokenizer, c));
      }
      // Passes are interleaved (every strategy once per pass) so that load from other processes on a
      // shared machine falls on all strategies alike; the first pass is warm-up.
      int passes = 4;
      long[][] nanos = new long[strategies.size()][passes - 1];
      long[] chunks = new long[strategies.size()];
      for (int pass = 0; pass < passes; pass++) {
        for (int i = 0; i < strategies.size(); i++) {
          long t0 = System.nanoTime();
          chunks[i] = run(chunkers.get(i), docs);
          if (pass > 0) {
            nanos[i][pass - 1] = System.nanoTime() - t0;
          }
        }
      }
      System.out.printf(Locale.ROOT, "%-22s %8s %10s %10s %8s %8s%n", "strategy", "chunks", "chunks/s", "docs/s",
          "MB/s", "ratio");
      double base = 0;
      for (int i = 0; i < strategies.size(); i++) {
        Arrays.sort(nanos[i]);
        double s = nanos[i][nanos[i].length / 2] / 1e9;
        double rate = chunks[i] / s;
        base = i == 0 ? rate : base;
        System.out.printf(Locale.ROOT, "%-22s %8d %10.0f %10.0f %8.2f %8.2f%n", strategies.get(i), chunks[i], rate,
            docs.size() / s, chars / 1e6 / s, rate / base);
      }
    }
  }

  private static long run(DocumentChunker chunker, List<Document> docs) {
    long n = 0;
    for (Document d : docs) {
      n += chunker.cut(d).chunks().size();
    }
    return n;
  }
}
