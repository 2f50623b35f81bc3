package dev.kiln.eval;

import dev.kiln.search.RequestOptions;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs judged queries through a {@link RetrievalPath} (a snapshot, or several federated) and averages nDCG@10, recall@100 and MRR@10 over
 * them. Chunks are folded into documents before scoring (see {@link DocumentRanking}), so the
 * searcher is asked for {@code depth} chunks: enough, for typical chunking, to still hold 100
 * distinct documents after folding.
 */
public final class Evaluator {
  /** Chunk hits requested per query. */
  public static final int DEFAULT_DEPTH = 1000;
  static final int NDCG_CUTOFF = 10;
  static final int RECALL_CUTOFF = 100;
  static final int MRR_CUTOFF = 10;
  static final int HIT_CUTOFF = 10;

  private static final Logger LOG = LoggerFactory.getLogger(Evaluator.class);

  private final RetrievalPath searcher;
  private boolean unjudged;
  private final int depth;
  private Aggregation aggregation = Aggregation.MAX;
  private Path runFile;
  private String runTag = "kiln";
  private RequestOptions options = RequestOptions.NONE;

  public Evaluator(RetrievalPath searcher) {
    this(searcher, DEFAULT_DEPTH);
  }

  /** @param depth chunk hits requested per query; at least {@value #RECALL_CUTOFF} */
  public Evaluator(RetrievalPath searcher, int depth) {
    if (depth < RECALL_CUTOFF) {
      throw new IllegalArgumentException("depth must be >= " + RECALL_CUTOFF + " for recall@"
          + RECALL_CUTOFF + ", was " + depth);
    }
    this.searcher = searcher;
    this.depth = depth;
  }

  /** How chunk scores become document scores (default {@link Aggregation#MAX}). */
  public Evaluator aggregation(Aggregation value) {
    this.aggregation = value;
    return this;
  }

  /**
   * Also runs the queries that have no judgments — unanswerable questions written to measure the
   * relevance gate — and counts how many of them got no hit ({@link EvalReport#unjudgedAbstained()}).
   */
  public Evaluator unjudged(boolean run) {
    this.unjudged = run;
    return this;
  }

  /** Retrieval options every query sets over the searcher's (a rewriter by name, say). */
  public Evaluator options(RequestOptions value) {
    this.options = value == null ? RequestOptions.NONE : value;
    return this;
  }

  /**
   * Also writes a TREC run file ({@code qid Q0 docid rank score tag}, up to {@code depth} documents
   * per query) so the results can be checked with standard tools such as trec_eval.
   */
  public Evaluator runFile(Path file, String tag) {
    this.runFile = file;
    this.runTag = tag.replaceAll("\\s+", "_");
    return this;
  }

  /**
   * Evaluates every query that has judgments. Judged queries missing from {@code queries} are
   * skipped with a warning; queries without judgments are ignored. Means are over evaluated queries
   * only, and are 0 when there are none.
   */
  public EvalReport evaluate(Queries queries, Qrels qrels, SearchMode mode) {
    double ndcg = 0;
    double recall = 0;
    double mrr = 0;
    double hit = 0;
    int evaluated = 0;
    int missing = 0;
    int abstained = 0;
    try (BufferedWriter run = runFile == null ? null : Files.newBufferedWriter(runFile, StandardCharsets.UTF_8)) {
      for (String queryId : qrels.queryIds()) {
        String text = queries.text(queryId);
        if (text == null) {
          missing++;
          continue;
        }
        Map<String, Integer> grades = qrels.judgments(queryId);
        List<SearchHit> hits = searcher.search(SearchRequest.of(text, mode, depth).withOptions(options)).results();
        abstained += hits.isEmpty() ? 1 : 0;
        List<DocumentRanking.ScoredDoc> ranked = DocumentRanking.aggregate(hits, depth, aggregation);
        List<String> docs = ranked.stream().map(DocumentRanking.ScoredDoc::docId).toList();
        ndcg += Metrics.ndcgAt(NDCG_CUTOFF, docs, grades);
        recall += Metrics.recallAt(RECALL_CUTOFF, docs, grades);
        mrr += Metrics.mrrAt(MRR_CUTOFF, docs, grades);
        hit += Metrics.hitAt(HIT_CUTOFF, docs, grades);
        evaluated++;
        if (run != null) {
          writeRun(run, queryId, ranked);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the run file " + runFile, e);
    }
    if (missing > 0) {
      LOG.warn("skipped {} judged query id(s) that the queries file has no text for", missing);
    }
    int ran = 0;
    int ranAbstained = 0;
    if (unjudged) {
      for (String queryId : queries.ids()) {
        if (qrels.judgments(queryId).isEmpty()) {
          ran++;
          ranAbstained += searcher.search(SearchRequest.of(queries.text(queryId), mode, depth).withOptions(options))
              .results().isEmpty() ? 1 : 0;
        }
      }
    }
    int n = Math.max(1, evaluated);
    return new EvalReport(searcher.label(), mode, evaluated, ndcg / n, recall / n, mrr / n, hit / n,
        aggregation, evaluated - abstained, abstained, ran, ranAbstained);
  }

  private void writeRun(BufferedWriter run, String queryId, List<DocumentRanking.ScoredDoc> ranked)
      throws IOException {
    int rank = 1;
    for (DocumentRanking.ScoredDoc d : ranked) {
      run.write(String.format(Locale.ROOT, "%s Q0 %s %d %.6f %s%n", queryId, d.docId(), rank++, d.score(), runTag));
    }
  }
}
