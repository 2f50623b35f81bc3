package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import dev.kiln.index.KnnSearch;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** {@link SearchOptions.Builder}: one set of defaults, every value checked at {@code build()}. */
class SearchOptionsTest {
  @Test
  void theBuilderHoldsTheDefaultsTheQualityNumbersWereMeasuredWith() {
    SearchOptions d = SearchOptions.builder().build();
    assertEquals(FusionMethod.BLEND, d.fusion());
    assertEquals(60, d.rrfK());
    assertEquals(0.5, d.alpha());
    assertEquals(100, d.denseDepth());
    assertEquals(100, d.bm25Depth());
    assertEquals(0.01, d.exactFilterRatio());
    assertTrue(Double.isNaN(d.minScore()) && Double.isNaN(d.maxDrop()), "gates off");
    assertNull(d.reranker());
    assertEquals(50, d.rerankDepth());
    assertEquals(false, d.prf());
    assertEquals(new DenseFeedback(3, 0.25), d.denseFeedback());
    assertEquals(new LexicalFeedback(10, 10, 0.7), d.lexicalFeedback());
    assertEquals(KnnSearch.AUTO_EF, d.ef());
    assertEquals(SearchOptions.defaultQueryEmbedders(), d.queryEmbedders());
    assertEquals(FeedbackScope.CANDIDATES, d.feedbackScope());
    assertTrue(d.describe().endsWith(" prf-scope=candidates"), d.describe());
    assertEquals(d, SearchOptions.defaults());
  }

  @Test
  void toBuilderKeepsEveryValueAndChangesOnlyWhatIsSet() {
    SearchOptions o = SearchOptions.builder().fusion(FusionMethod.RRF).rrfK(20).alpha(0.3).denseDepth(40)
        .bm25Depth(70).exactFilterRatio(0.2).minScore(0.4).maxDrop(0.1).reranker(Path.of("ce")).rerankDepth(9)
        .prf(true).denseFeedback(DenseFeedback.OFF).lexicalFeedback(LexicalFeedback.OFF).ef(300).queryEmbedders(2)
        .feedbackScope(FeedbackScope.INDEX).build();
    assertEquals(o, o.toBuilder().build());
    SearchOptions deeper = o.toBuilder().depth(500).build();
    assertEquals(500, deeper.denseDepth());
    assertEquals(500, deeper.bm25Depth());
    assertEquals(o, deeper.toBuilder().denseDepth(40).bm25Depth(70).build());
    assertEquals(o.withEf(12), o.toBuilder().ef(12).build());
    assertEquals(FeedbackScope.INDEX, o.feedbackScope());
    assertEquals(FeedbackScope.CANDIDATES, o.withFeedbackScope(null).feedbackScope());
  }

  @Test
  void feedbackScopeParsesItsTwoNamesAndNamesTheOptionOtherwise() {
    assertEquals(FeedbackScope.CANDIDATES, FeedbackScope.parse(" Candidates"));
    assertEquals(FeedbackScope.INDEX, FeedbackScope.parse("index"));
    ConfigException e = assertThrows(ConfigException.class, () -> FeedbackScope.parse("everything"));
    assertTrue(e.getMessage().startsWith("unknown --prf-scope 'everything'"), e.getMessage());
    assertThrows(ConfigException.class, () -> FeedbackScope.parse(null));
  }

  @Test
  void buildNamesTheOptionToFix() {
    assertRejected("--fusion", b -> b.fusion(null));
    assertRejected("--rrf-k", b -> b.rrfK(-1));
    assertRejected("--alpha", b -> b.alpha(1.5));
    assertRejected("--alpha", b -> b.alpha(Double.NaN));
    assertRejected("--dense-depth", b -> b.denseDepth(0));
    assertRejected("--bm25-depth", b -> b.bm25Depth(0));
    assertRejected("--exact-filter-ratio", b -> b.exactFilterRatio(-0.1));
    assertRejected("--max-drop", b -> b.maxDrop(-1));
    assertRejected("--rerank-depth", b -> b.rerankDepth(0));
    assertRejected("--ef", b -> b.ef(-1));
    assertRejected("--query-embedders", b -> b.queryEmbedders(0));
  }

  @Test
  void settersOnlyRecordSoAnInvalidIntermediateValueIsFine() {
    // Like a command line read option by option: only the finished set is checked.
    SearchOptions o = SearchOptions.builder().depth(0).denseDepth(5).bm25Depth(6).build();
    assertEquals(5, o.denseDepth());
    assertEquals(6, o.bm25Depth());
  }

  private static void assertRejected(String option, UnaryOperator<SearchOptions.Builder> change) {
    SearchOptions.Builder builder = change.apply(SearchOptions.builder());
    ConfigException e = assertThrows(ConfigException.class, builder::build);
    assertTrue(e.getMessage().startsWith(option + " "), e.getMessage());
  }
}
