package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    SettingException e = assertThrows(SettingException.class, () -> FeedbackScope.parse("everything"));
    assertEquals(Setting.FEEDBACK_SCOPE, e.setting());
    assertTrue(e.getMessage().startsWith("unknown feedback-scope 'everything'"), e.getMessage());
    assertThrows(ConfigException.class, () -> FeedbackScope.parse(null));
  }

  @Test
  void buildNamesTheOptionToFix() {
    assertRejected(Setting.FUSION, b -> b.fusion(null));
    assertRejected(Setting.RRF_K, b -> b.rrfK(-1));
    assertRejected(Setting.ALPHA, b -> b.alpha(1.5));
    assertRejected(Setting.ALPHA, b -> b.alpha(Double.NaN));
    assertRejected(Setting.DENSE_DEPTH, b -> b.denseDepth(0));
    assertRejected(Setting.BM25_DEPTH, b -> b.bm25Depth(0));
    assertRejected(Setting.EXACT_FILTER_RATIO, b -> b.exactFilterRatio(-0.1));
    assertRejected(Setting.MAX_DROP, b -> b.maxDrop(-1));
    assertRejected(Setting.RERANK_DEPTH, b -> b.rerankDepth(0));
    assertRejected(Setting.EF, b -> b.ef(-1));
    assertRejected(Setting.QUERY_EMBEDDERS, b -> b.queryEmbedders(0));
  }

  @Test
  void settersOnlyRecordSoAnInvalidIntermediateValueIsFine() {
    // Like a command line read option by option: only the finished set is checked.
    SearchOptions o = SearchOptions.builder().depth(0).denseDepth(5).bm25Depth(6).build();
    assertEquals(5, o.denseDepth());
    assertEquals(6, o.bm25Depth());
  }

  /** Refused naming the setting in the library's terms, no command-line flag. */
  private static void assertRejected(Setting setting, UnaryOperator<SearchOptions.Builder> change) {
    SearchOptions.Builder builder = change.apply(SearchOptions.builder());
    SettingException e = assertThrows(SettingException.class, builder::build);
    assertEquals(setting, e.setting());
    assertTrue(e.getMessage().startsWith(setting.key() + " must be "), e.getMessage());
    assertFalse(e.getMessage().contains("--"), e.getMessage());
  }
}
