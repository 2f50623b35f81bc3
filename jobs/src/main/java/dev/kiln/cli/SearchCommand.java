package dev.kiln.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import dev.kiln.config.ConfigException;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.search.ModelCheck;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln search}: answers one query from a published snapshot. */
@Command(name = "search", mixinStandardHelpOptions = true,
    description = "Search the published snapshot (or --snapshot ID).")
final class SearchCommand implements Callable<Integer> {
  @Option(names = "--snapshots", paramLabel = "URI", defaultValue = "kiln-data/snapshots",
      description = "snapshots root (default: ${DEFAULT-VALUE})")
  String snapshots;

  @Option(names = "--snapshot", paramLabel = "ID", description = "a snapshot id instead of CURRENT")
  String snapshot;

  @Option(names = "--mode", defaultValue = "hybrid", description = "hybrid|dense|bm25 (default: ${DEFAULT-VALUE})")
  String mode;

  @Option(names = "--k", defaultValue = "10", description = "results (default: ${DEFAULT-VALUE})")
  int k;

  @Option(names = "--model", paramLabel = "NAME|DIR",
      description = "fail unless the snapshot was embedded with this model (default: the manifest's model)")
  String model;

  @Option(names = "--json", description = "print JSON")
  boolean json;

  @Option(names = "--expand", defaultValue = "none", paramLabel = "none|parents",
      description = "parents: return the deduplicated parents of the retrieved chunks (default: ${DEFAULT-VALUE})")
  String expand;

  @Parameters(arity = "1..*", paramLabel = "QUERY")
  List<String> query;

  @Override
  public Integer call() throws Exception {
    SearchMode searchMode = SearchMode.parse(mode);
    if (k < 1 || k > 1000) {
      throw new ConfigException("--k must be in 1..1000, was " + k);
    }
    String q = String.join(" ", query);
    if (!"none".equals(expand) && !"parents".equals(expand)) {
      throw new ConfigException("--expand must be 'none' or 'parents', was '" + expand + "'");
    }
    Path root = SnapshotRoots.local(snapshots, snapshot);
    try (Searcher searcher = Searcher.open(root, snapshot)) {
      if (model != null) {
        ModelCheck.mismatch(searcher.manifest(), ModelRegistry.resolve(model)).ifPresent(msg -> {
          throw new ConfigException("--model " + model + " does not match: " + msg
              + "; search without --model or with --model " + searcher.manifest().model().source());
        });
      }
      if ("parents".equals(expand)) {
        return ParentsOutput.search(searcher, root, q, searchMode, k, json);
      }
      SearchResponse response = searcher.search(q, searchMode, k);
      if (json) {
        System.out.println(toJson(response));
      } else {
        print(q, response);
      }
    }
    return Kiln.OK;
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
      r.put("text", h.text());
      r.set("metadata", m.valueToTree(h.metadata()));
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
      System.out.printf(Locale.ROOT, "%2d. %.4f  %s%s%n    %s%n", rank++, h.score(), h.chunkId(),
          crumb.isEmpty() ? "" : "  [" + crumb + "]", text);
    }
    if (response.results().isEmpty()) {
      System.out.println("(no results)");
    }
  }
}
