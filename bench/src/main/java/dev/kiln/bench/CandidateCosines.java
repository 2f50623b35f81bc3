package dev.kiln.bench;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.eval.Queries;
import dev.kiln.model.Document;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.util.VectorUtil;

/**
 * A rerank lever measured without building it into the searcher: for every (query, document) among
 * the first {@code --depth} documents of TREC run files (from {@code kiln eval --run}), the cosine of
 * the query and one representation of the document under one bundled model, written as
 * {@code qid<TAB>doc<TAB>cosine}. {@code scripts/rerank-runs.py} blends these columns with the run's
 * own scores and grid-searches the weights on a tuning split.
 *
 * <p>Representations: {@code document} (title and text as one passage, what a snapshot embeds),
 * {@code title} (the title alone), {@code sentences} (the best of the text's sentences, split by the
 * JDK's English sentence breaker). Texts are embedded one per call, as Kiln's CPU slots do, so the
 * numbers do not depend on batch neighbours.
 *
 * <p>Usage: {@code CandidateCosines --corpus corpus.jsonl --model NAME --represent
 * document|title|sentences --depth N --out FILE --run queries.jsonl=run.txt [--run ...] [--threads N]}.
 */
public final class CandidateCosines {
  private CandidateCosines() {}

  /** How a document is presented to the model; the score is the best cosine over the pieces. */
  enum Representation {
    DOCUMENT, TITLE, SENTENCES;

    List<String> pieces(String title, String text) {
      return switch (this) {
        case DOCUMENT -> List.of((title + " " + text).strip());
        case TITLE -> title.isBlank() ? List.of() : List.of(title.strip());
        case SENTENCES -> sentences(text);
      };
    }
  }

  static List<String> sentences(String text) {
    List<String> out = new ArrayList<>();
    BreakIterator breaks = BreakIterator.getSentenceInstance(Locale.ENGLISH);
    breaks.setText(text);
    int start = breaks.first();
    for (int end = breaks.next(); end != BreakIterator.DONE; start = end, end = breaks.next()) {
      String s = text.substring(start, end).strip();
      if (!s.isEmpty()) {
        out.add(s);
      }
    }
    return out;
  }

  /** The first {@code depth} documents of each query in a TREC run file, in rank order. */
  static Map<String, List<String>> topDocuments(Path run, int depth) throws IOException {
    Map<String, List<String[]>> rows = new LinkedHashMap<>();
    for (String line : Files.readAllLines(run, StandardCharsets.UTF_8)) {
      String[] f = line.strip().split("\\s+");
      if (f.length >= 6) {
        rows.computeIfAbsent(f[0], k -> new ArrayList<>()).add(f);
      }
    }
    Map<String, List<String>> top = new LinkedHashMap<>();
    rows.forEach((qid, list) -> {
      list.sort((a, b) -> Integer.compare(Integer.parseInt(a[3]), Integer.parseInt(b[3])));
      List<String> docs = new ArrayList<>();
      for (int i = 0; i < Math.min(depth, list.size()); i++) {
        docs.add(list.get(i)[2]);
      }
      top.put(qid, docs);
    });
    return top;
  }

  public static void main(String[] args) throws Exception {
    Map<String, List<String>> opt = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value, got " + args[i]);
      }
      opt.computeIfAbsent(args[i].substring(2), k -> new ArrayList<>()).add(args[i + 1]);
    }
    for (String required : List.of("corpus", "model", "represent", "depth", "out", "run")) {
      if (!opt.containsKey(required)) {
        throw new IllegalArgumentException("missing --" + required + " (usage: see the class comment)");
      }
    }
    ModelSpec spec = ModelRegistry.resolve(opt.get("model").get(0));
    Representation representation = Representation.valueOf(opt.get("represent").get(0).toUpperCase(Locale.ROOT));
    int depth = Integer.parseInt(opt.get("depth").get(0));
    int threads = Integer.parseInt(opt.getOrDefault("threads",
        List.of(Integer.toString(Runtime.getRuntime().availableProcessors()))).get(0));

    Map<String, String> queries = new HashMap<>();
    Map<String, List<String>> candidates = new LinkedHashMap<>();
    for (String pair : opt.get("run")) {
      int eq = pair.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("--run takes queries.jsonl=run.txt, got " + pair);
      }
      Queries split = Queries.read(Path.of(pair.substring(0, eq)));
      split.ids().forEach(id -> queries.put(id, split.text(id)));
      candidates.putAll(topDocuments(Path.of(pair.substring(eq + 1)), depth));
    }
    Set<String> wanted = new TreeSet<>();
    candidates.values().forEach(wanted::addAll);
    Map<String, List<String>> pieces = new HashMap<>();
    for (Document d : EmbedBench.readDocs(Path.of(opt.get("corpus").get(0)), Integer.MAX_VALUE)) {
      if (wanted.contains(d.id())) {
        pieces.put(d.id(), representation.pieces(d.title(), d.text()));
      }
    }
    List<String> texts = new ArrayList<>(new LinkedHashSet<>(pieces.values().stream().flatMap(List::stream).toList()));
    System.err.printf("%d queries, %d candidate documents, %d %s texts to embed with %s on %d threads%n",
        candidates.size(), pieces.size(), texts.size(), representation, spec.name(), threads);

    Map<String, float[]> vectors = embedAll(spec, texts, threads);
    int missing = 0;
    try (TextEmbedder queryEmbedder = TextEmbedder.open(spec, 1, 1);
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(opt.get("out").get(0))))) {
      for (var e : candidates.entrySet()) {
        String text = queries.get(e.getKey());
        if (text == null) {
          throw new IllegalArgumentException("query " + e.getKey() + " is in a run but not in its queries file");
        }
        float[] q = queryEmbedder.embedQuery(text);
        for (String doc : e.getValue()) {
          List<String> p = pieces.get(doc);
          if (p == null) {
            missing++;
            continue;
          }
          double best = 0; // a document with nothing to compare (no title, no sentence) scores 0
          for (int i = 0; i < p.size(); i++) {
            double c = VectorUtil.dotProduct(q, vectors.get(p.get(i)));
            best = i == 0 ? c : Math.max(best, c);
          }
          out.printf(Locale.ROOT, "%s\t%s\t%.6f%n", e.getKey(), doc, best);
        }
      }
    }
    if (missing > 0) {
      System.err.printf("%d candidates are not in the corpus and were left out%n", missing);
    }
  }

  private static Map<String, float[]> embedAll(ModelSpec spec, List<String> texts, int threads) throws Exception {
    Map<String, float[]> vectors = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    try {
      List<Future<?>> parts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int slot = t;
        parts.add(pool.submit(() -> {
          try (TextEmbedder embedder = TextEmbedder.open(spec, 1, 1)) {
            for (int i = slot; i < texts.size(); i += threads) {
              vectors.put(texts.get(i), embedder.embedPassages(List.of(texts.get(i)))[0]);
              if (slot == 0 && i % 5000 < threads) {
                System.err.printf("%d/%d embedded, %d s%n", i, texts.size(), (System.nanoTime() - start) / 1_000_000_000L);
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : parts) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    return vectors;
  }
}
