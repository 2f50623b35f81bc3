package dev.kiln.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.ConfigException;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.search.ModelCheck;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import dev.kiln.search.context.AssembledContext;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.snapshot.Verification;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln search}: answers one query from a published snapshot. */
@Command(name = "search", mixinStandardHelpOptions = true,
    description = "Search the published snapshot (or --snapshot ID).")
final class SearchCommand implements Callable<Integer> {
  @Option(names = "--snapshots", paramLabel = "URI",
      description = "snapshots root (default: " + SearchPaths.DEFAULT_ROOT + "); repeat it to search several roots as"
          + " one (federated: fused, each hit labelled with its root)")
  List<String> snapshots;

  @Option(names = "--snapshots-weight", paramLabel = "W",
      description = "with several --snapshots: each root's weight in the fusion, in the same order (default: 1 each)")
  List<Double> weights;

  @Option(names = "--snapshot", paramLabel = "ID", description = "a snapshot id instead of CURRENT")
  String snapshot;

  @Option(names = "--mode", defaultValue = "hybrid", description = "hybrid|dense|bm25 (default: ${DEFAULT-VALUE})")
  String mode;

  @Option(names = "--k", defaultValue = "10", description = "results (default: ${DEFAULT-VALUE})")
  int k;

  @Option(names = "--filter", paramLabel = "KEY=VALUE|KEY>=VALUE",
      description = "metadata condition; repeatable (keys AND, values of one key OR); ranges (>=, >, <=, <,"
          + " LOW<=KEY<HIGH) on keys the snapshot indexed for ranges (index.range-fields)")
  List<String> filters;

  @Option(names = "--context", description = "print the results packed as LLM context")
  boolean context;

  @Option(names = "--budget", paramLabel = "TOKENS", defaultValue = "1024",
      description = "context token budget, counted with the model's tokenizer (default: ${DEFAULT-VALUE})")
  int budget;

  @Option(names = "--model", paramLabel = "NAME|DIR",
      description = "fail unless the snapshot was embedded with this model (default: the manifest's model)")
  String model;

  @Option(names = "--json", description = "print JSON")
  boolean json;

  @Mixin RetrievalOptions retrieval;
  @Mixin VerifyOption verify;
  @Mixin FileSystemOptions fs;
  @Option(names = "--expand", defaultValue = "none", paramLabel = "none|parents",
      description = "parents: return the deduplicated parents of the retrieved chunks (default: ${DEFAULT-VALUE})")
  String expand;

  @Parameters(arity = "1..*", paramLabel = "QUERY")
  List<String> query;

  @Override
  public Integer call() throws Exception {
    StartupTimings.mark("main", System.nanoTime());
    SearchMode searchMode = SearchMode.parse(mode);
    Verification verification = verify.mode();
    if (k < 1 || k > SearchRequest.MAX_K) {
      throw new ConfigException("--k must be in 1.." + SearchRequest.MAX_K + ", was " + k);
    }
    if (budget < 1) {
      throw new ConfigException("--budget must be >= 1, was " + budget);
    }
    String q = String.join(" ", query);
    if (!"none".equals(expand) && !"parents".equals(expand)) {
      throw new ConfigException("--expand must be 'none' or 'parents', was '" + expand + "'");
    }
    SearchRequest request = new SearchRequest(q, searchMode, k, MetadataFilter.parse(filters),
        retrieval.requestOptions());
    List<String> roots = SearchPaths.roots(snapshots);
    if (roots.size() > 1 && (context || "parents".equals(expand))) {
      throw new ConfigException((context ? "--context" : "--expand parents") + " reads one snapshot's parents and"
          + " tokenizer: use it with a single --snapshots root");
    }
    long opening = System.nanoTime();
    // A dense or hybrid search embeds its query: the model loads while the shards open.
    boolean embeds = searchMode != SearchMode.BM25;
    try (RetrievalPath path = SearchPaths.open(roots, weights, snapshot, retrieval.toOptions(), verification, fs,
        embeds)) {
      StartupTimings.mark("open", opening);
      if (model != null) {
        for (Searcher searcher : SearchPaths.searchers(path)) {
          ModelCheck.mismatch(searcher.manifest(), ModelRegistry.resolve(model)).ifPresent(msg -> {
            throw new ConfigException("--model " + model + " does not match: " + msg
                + "; search without --model or with --model " + searcher.manifest().model().source());
          });
        }
      }
      if (context) {
        AssembledContext ctx = ((Searcher) path).context(request, budget);
        System.out.println(json ? new ObjectMapper().writeValueAsString(ctx) : contextText(ctx));
        return Kiln.OK;
      }
      if ("parents".equals(expand)) {
        return ParentsOutput.search((Searcher) path, SnapshotRoots.local(roots.get(0), snapshot, fs), q, searchMode,
            k, json);
      }
      long searching = System.nanoTime();
      SearchResponse response = path.search(request);
      StartupTimings.mark("first_query", searching);
      if (StartupTimings.ON) {
        warmTimings(path, roots, verification, request);
      }
      if (json) {
        System.out.println(toJson(response));
      } else {
        print(q, response);
      }
    }
    return Kiln.OK;
  }

  /**
   * With timings on: {@code kiln.timings.warm} (default 0) more searches of the same request on the open
   * snapshot ({@code query_warm}: its query model loaded) and opens of it in this JVM ({@code
   * open_warm}), each timed, so that a cold figure has its warm one beside it (docs/results/README.md,
   * rule 6).
   */
  private void warmTimings(RetrievalPath path, List<String> roots, Verification verification, SearchRequest request)
      throws Exception {
    for (int i = 0; i < Integer.getInteger("kiln.timings.warm", 0); i++) {
      long searching = System.nanoTime();
      path.search(request);
      StartupTimings.mark("query_warm", searching);
      long opening = System.nanoTime();
      SearchPaths.open(roots, weights, snapshot, retrieval.toOptions(), verification, fs).close();
      StartupTimings.mark("open_warm", opening);
    }
  }

  private static String contextText(AssembledContext ctx) {
    return ctx.blocks().isEmpty() ? "(" + ctx.reason() + ")" : ctx.text();
  }

  static String toJson(SearchResponse response) throws Exception {
    ObjectMapper m = new ObjectMapper();
    ObjectNode root = m.createObjectNode();
    root.put("snapshot", response.snapshotId());
    root.put("mode", response.mode().name().toLowerCase(Locale.ROOT));
    ArrayNode results = root.putArray("results");
    for (SearchHit h : response.results()) {
      ObjectNode r = results.addObject();
      r.put("chunk_id", h.chunkId());
      r.put("doc_id", h.docId());
      r.put("score", h.score());
      if (h.relevance() != null) {
        r.put("relevance", h.relevance());
      }
      if (h.root() != null) {
        r.put("root", h.root());
      }
      r.put("text", h.text());
      r.set("metadata", m.valueToTree(h.metadata()));
    }
    if (response.reason() != null) {
      root.put("reason", response.reason());
    }
    return m.writeValueAsString(root);
  }

  private static void print(String q, SearchResponse response) {
    System.out.printf(Locale.ROOT, "snapshot %s, mode %s, query: %s%n", response.snapshotId(),
        response.mode().name().toLowerCase(Locale.ROOT), q);
    int rank = 1;
    for (SearchHit h : response.results()) {
      String text = h.text().replaceAll("\\s+", " ").strip();
      if (text.length() > 160) {
        text = text.substring(0, 157) + "...";
      }
      String crumb = h.metadata().getOrDefault("breadcrumb", "");
      System.out.printf(Locale.ROOT, "%2d. %.4f  %s%s%s%n    %s%n", rank++, h.score(),
          h.root() == null ? "" : h.root() + " ", h.chunkId(), crumb.isEmpty() ? "" : "  [" + crumb + "]", text);
    }
    if (response.results().isEmpty()) {
      System.out.println("(" + response.reason() + ")");
    }
  }
}
