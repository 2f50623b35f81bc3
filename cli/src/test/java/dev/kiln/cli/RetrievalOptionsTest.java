package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kiln.index.KnnSearch;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.FeedbackScope;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The retrieval flags reach {@link SearchOptions}, and bad values exit 2 before any work. */
class RetrievalOptionsTest {
  @Test
  void flagsMapOntoSearchOptions() {
    EvalCommand eval = new EvalCommand();
    new CommandLine(eval).parseArgs("--queries", "q", "--qrels", "r", "--fusion", "blend", "--alpha",
        "0.3", "--rrf-k", "20", "--depth", "50", "--bm25-depth", "80", "--min-score", "0.1", "--prf");
    SearchOptions o = eval.retrieval.toOptions();
    assertEquals(FusionMethod.BLEND, o.fusion());
    assertEquals(0.3, o.alpha());
    assertEquals(20, o.rrfK());
    assertEquals(50, o.denseDepth());
    assertEquals(80, o.bm25Depth());
    assertEquals(0.1, o.minScore());
    assertEquals(Double.NaN, o.maxDrop());
    assertEquals("bm25+prf", EvalCommand.variant(SearchMode.BM25, o));
    assertEquals("hybrid-blend+prf", EvalCommand.variant(SearchMode.HYBRID, o));
    assertEquals("hybrid-blend", EvalCommand.variant(SearchMode.HYBRID, SearchOptions.defaults()));
    assertEquals("hybrid-rrf", EvalCommand.variant(SearchMode.HYBRID, SearchOptions.defaults().withFusion(FusionMethod.RRF)));
    assertEquals(KnnSearch.AUTO_EF, o.ef());
    assertEquals(SearchOptions.defaultQueryEmbedders(), o.queryEmbedders());

    EvalCommand wide = new EvalCommand();
    new CommandLine(wide).parseArgs("--queries", "q", "--qrels", "r", "--ef", "250", "--query-embedders", "3");
    assertEquals(250, wide.retrieval.toOptions().ef());
    assertEquals(3, wide.retrieval.toOptions().queryEmbedders());
    assertEquals(FeedbackScope.CANDIDATES, o.feedbackScope());

    EvalCommand index = new EvalCommand();
    new CommandLine(index).parseArgs("--queries", "q", "--qrels", "r", "--prf-scope", "index");
    assertEquals(FeedbackScope.INDEX, index.retrieval.toOptions().feedbackScope());
  }

  @Test
  void noFlagsMeanTheLibraryDefaults() {
    // One source of defaults: a command line without retrieval flags searches exactly as Searcher.open does.
    for (Object command : new Object[] {new SearchCommand(), new EvalCommand(), new ServeCommand()}) {
      new CommandLine(command).parseArgs(command instanceof SearchCommand ? new String[] {"q"}
          : command instanceof EvalCommand ? new String[] {"--queries", "q", "--qrels", "r"} : new String[0]);
      RetrievalOptions retrieval = command instanceof SearchCommand s ? s.retrieval
          : command instanceof EvalCommand e ? e.retrieval : ((ServeCommand) command).retrieval;
      assertEquals(SearchOptions.defaults(), retrieval.toOptions(), command.getClass().getSimpleName());
    }
  }

  @Test
  void aBadEfQueryEmbeddersOrVectorEncodingIsAUsageError(@TempDir Path empty) {
    String root = empty.toString();
    assertEquals(Kiln.USAGE, Kiln.execute("search", "--snapshots", root, "--ef", "-1", "q"));
    assertEquals(Kiln.USAGE, Kiln.execute("search", "--snapshots", root, "--query-embedders", "0", "q"));
    assertEquals(Kiln.USAGE, Kiln.execute("search", "--snapshots", root, "--prf-scope", "everything", "q"));
    assertEquals(Kiln.USAGE, Kiln.execute("build", "--snapshots", root, "--corpus", root, "--vector-encoding", "int3"));
  }

  @Test
  void badRetrievalOptionsAreUsageErrors(@TempDir Path empty) {
    String root = empty.toString();
    assertEquals(Kiln.USAGE, Kiln.execute("search", "--snapshots", root, "--filter", "novalue", "q"));
    assertEquals(Kiln.USAGE, Kiln.execute("search", "--snapshots", root, "--fusion", "max", "q"));
    assertEquals(Kiln.USAGE, Kiln.execute("search", "--snapshots", root, "--alpha", "2", "q"));
    assertEquals(Kiln.USAGE, Kiln.execute("search", "--snapshots", root, "--k", "1001", "q"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--port", "70000"));
    // A snapshots root with nothing published is a failure to do the work, not a usage error.
    assertEquals(Kiln.FAILURE, Kiln.execute("search", "--snapshots", root, "q"));
  }
}
