package dev.kiln.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.ConfigException;
import dev.kiln.eval.Aggregation;
import dev.kiln.eval.EvalReport;
import dev.kiln.eval.Evaluator;
import dev.kiln.eval.Qrels;
import dev.kiln.eval.Queries;
import dev.kiln.search.RequestOptions;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.snapshot.Verification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kiln eval}: retrieval quality of a snapshot on BEIR-style queries and judgements. */
@Command(name = "eval", mixinStandardHelpOptions = true,
    description = "Compute nDCG@10, Recall@100 and MRR@10 of the published snapshot.")
final class EvalCommand implements Callable<Integer> {
  @Option(names = "--snapshots", paramLabel = "URI",
      description = "snapshots root (default: " + SearchPaths.DEFAULT_ROOT + "); repeat it to evaluate several roots"
          + " searched as one (federated)")
  List<String> snapshots;

  @Option(names = "--snapshots-weight", paramLabel = "W",
      description = "with several --snapshots: each root's weight in the fusion, in the same order (default: 1 each)")
  List<Double> weights;

  @Option(names = "--snapshot", paramLabel = "ID", description = "a snapshot id instead of CURRENT")
  String snapshot;

  @Option(names = "--queries", required = true, paramLabel = "FILE", description = "BEIR queries.jsonl")
  Path queries;

  @Option(names = "--qrels", required = true, paramLabel = "FILE", description = "BEIR qrels.tsv")
  Path qrels;

  @Option(names = "--mode", defaultValue = "hybrid", description = "hybrid|dense|bm25 (default: ${DEFAULT-VALUE})")
  String mode;

  @Option(names = "--json", description = "print JSON")
  boolean json;

  @Mixin RetrievalOptions retrieval;
  @Mixin VerifyOption verify;
  @Mixin FileSystemOptions fs;
  @Option(names = "--aggregate", defaultValue = "max",
      description = "chunk scores to document score: max|sum (default: ${DEFAULT-VALUE})")
  String aggregate;

  @Option(names = "--run", paramLabel = "FILE", description = "also write a TREC run file (qid Q0 doc rank score tag)")
  Path run;

  @Override
  public Integer call() throws Exception {
    SearchMode searchMode = SearchMode.parse(mode);
    Verification verification = verify.mode();
    for (Path p : new Path[] {queries, qrels}) {
      if (!Files.isRegularFile(p)) {
        throw new ConfigException("file not found: " + p);
      }
    }
    SearchOptions options = retrieval.toOptions();
    RequestOptions perQuery = retrieval.requestOptions();
    try (RetrievalPath searcher = SearchPaths.open(snapshots, weights, snapshot, options, verification, fs)) {
      String variant = variant(searchMode, options)
          + (perQuery.rewriter() == null ? "" : "+" + perQuery.rewriter());
      // With a relevance gate, unjudged queries (unanswerable ones) are run too, to count abstentions.
      boolean gated = !Double.isNaN(options.minScore()) || !Double.isNaN(options.maxDrop());
      Evaluator evaluator = new Evaluator(searcher).aggregation(Aggregation.parse(aggregate)).unjudged(gated)
          .options(perQuery);
      if (run != null) {
        evaluator.runFile(run, "kiln-" + variant);
      }
      EvalReport report = evaluator.evaluate(Queries.read(queries), Qrels.read(qrels), searchMode);
      if (json) {
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode node = (ObjectNode) m.readTree(report.toJson());
        node.put("variant", variant);
        node.put("options", options.describe());
        System.out.println(m.writeValueAsString(node));
      } else {
        System.out.printf(Locale.ROOT, "snapshot %s, mode %s, %d queries%n", report.snapshot(),
            variant, report.queries());
        System.out.printf(Locale.ROOT, "  nDCG@10    %.4f%n  Recall@100 %.4f%n  MRR@10     %.4f%n  Hit@10     %.4f%n",
            report.ndcg10(), report.recall100(), report.mrr10(), report.hit10());
        System.out.printf(Locale.ROOT, "  answered   %d of %d judged queries (%d abstained)%n", report.answered(),
            report.queries(), report.abstained());
        if (report.unjudged() > 0) {
          System.out.printf(Locale.ROOT, "  unjudged   %d queries, %d abstained%n", report.unjudged(),
              report.unjudgedAbstained());
        }
      }
    }
    return Kiln.OK;
  }

  /** The label a results table uses: bm25, bm25+prf, dense, hybrid-rrf, hybrid-blend, … */
  static String variant(SearchMode mode, SearchOptions options) {
    String v = mode.label();
    if (mode == SearchMode.HYBRID) {
      v += "-" + options.fusion().label();
    }
    if (options.prf() && mode != SearchMode.DENSE) {
      v += "+prf";
    }
    if (options.reranker() != null) {
      v += "+rerank";
    }
    return v;
  }
}
