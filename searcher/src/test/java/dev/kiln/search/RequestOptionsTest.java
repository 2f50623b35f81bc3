package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.PassageTestRewriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Per-request options ({@link RequestOptions}) on a real snapshot: each one changes what it names. */
class RequestOptionsTest {
  @TempDir static Path root;
  private static TextEmbedder embedder;
  private static Searcher searcher;

  @BeforeAll
  static void open() throws IOException {
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).write(root);
    searcher = Searcher.open(root);
  }

  @AfterAll
  static void close() throws IOException {
    searcher.close();
    embedder.close();
  }

  private static List<SearchHit> search(String q, SearchMode mode, RequestOptions options) {
    return searcher.search(SearchRequest.of(q, mode, 5).withOptions(options)).results();
  }

  @Test
  void feedbackSwitchesEveryPassOffOrOnAtDefaults() {
    SearchOptions off = RequestOptions.builder().feedback(false).build().applyTo(SearchOptions.defaults().withPrf(true));
    assertEquals(DenseFeedback.OFF, off.denseFeedback());
    assertFalse(off.lexicalFeedback().enabled());
    assertFalse(off.prf());
    SearchOptions on = RequestOptions.builder().feedback(true).build().applyTo(off);
    assertEquals(DenseFeedback.DEFAULT, on.denseFeedback());
    assertEquals(LexicalFeedback.DEFAULT, on.lexicalFeedback());
    assertTrue(RequestOptions.NONE.isEmpty());
    assertEquals(SearchOptions.defaults(), RequestOptions.NONE.applyTo(SearchOptions.defaults()));
  }

  @Test
  void fusionAndGatesApplyToOneRequestOnly() {
    List<SearchHit> blend = search("lava and ash", SearchMode.HYBRID, RequestOptions.NONE);
    List<SearchHit> rrf = search("lava and ash", SearchMode.HYBRID,
        RequestOptions.builder().fusion(FusionMethod.RRF).build());
    // RRF scores are sums of 1/(60 + rank): at most 2/61 with two legs.
    assertTrue(rrf.get(0).score() <= 2.0 / 61 + 1e-6, rrf.toString());
    assertTrue(blend.get(0).score() > 0.5, blend.toString());
    List<SearchHit> gated = search("lava and ash", SearchMode.DENSE,
        RequestOptions.builder().minScore(0.999).build());
    assertEquals(List.of(), gated);
    List<SearchHit> dropped = search("lava and ash", SearchMode.DENSE, RequestOptions.builder().maxDrop(0).build());
    assertEquals(1, dropped.size());
    // The searcher's own options are untouched.
    assertEquals(5, search("lava and ash", SearchMode.DENSE, RequestOptions.NONE).size());
  }

  @Test
  void outOfRangeValuesAndMissingPartsNameTheSetting() {
    SettingException alpha = assertThrows(SettingException.class,
        () -> search("lava", SearchMode.HYBRID, RequestOptions.builder().alpha(2).build()));
    assertEquals(Setting.ALPHA, alpha.setting());
    SettingException rerank = assertThrows(SettingException.class,
        () -> search("lava", SearchMode.HYBRID, RequestOptions.builder().rerank(true).build()));
    assertEquals(Setting.RERANK, rerank.setting());
    SettingException rewriter = assertThrows(SettingException.class,
        () -> search("lava", SearchMode.BM25, RequestOptions.builder().rewriter("hyde2").build()));
    assertEquals(Setting.REWRITER, rewriter.setting());
    assertTrue(rewriter.getMessage().contains("'hyde2' is unknown; known rewriters: keywords, none, rm3"),
        rewriter.getMessage());
  }

  /** A rewriter that writes passage text is applied in dense mode too, its passage embedded as a passage. */
  @Test
  void denseModeEmbedsAPassageRewrite() {
    List<SearchHit> plain = search("magma erupts", SearchMode.DENSE, RequestOptions.NONE);
    List<SearchHit> rewritten = search("magma erupts", SearchMode.DENSE,
        RequestOptions.builder().rewriter(PassageTestRewriter.NAME).build());
    assertEquals("volcano#0", plain.get(0).chunkId());
    assertEquals("whale#0", rewritten.get(0).chunkId());
    float[] passage = embedder.embedPassages(List.of(PassageTestRewriter.PASSAGE))[0];
    List<SearchHit> byVector = searcher.dense(passage, 5);
    assertEquals(byVector.stream().map(SearchHit::chunkId).toList(),
        rewritten.stream().map(SearchHit::chunkId).toList());
    assertEquals(byVector.get(0).score(), rewritten.get(0).score(), 1e-5);
    // BM25 mode reads the rewrite's terms (the query's own here), not its passage.
    assertNotEquals("whale#0", search("magma erupts", SearchMode.BM25,
        RequestOptions.builder().rewriter(PassageTestRewriter.NAME).build()).get(0).chunkId());
  }

  @Test
  void keywordsRewriterRunsByName() {
    List<SearchHit> hits = search("git commit snapshot", SearchMode.BM25,
        RequestOptions.builder().rewriter("keywords").build());
    assertEquals("git#0", hits.get(0).chunkId());
  }
}
