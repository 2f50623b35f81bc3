package dev.kiln.search.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContextAssemblerTest {
  /** One token per whitespace-separated word: easy to reason about budgets. */
  private static int words(String s) {
    return s.isBlank() ? 0 : s.strip().split("\\s+").length;
  }

  private static SearchHit hit(String id, double score, String text, Map<String, String> meta) {
    return new SearchHit(id, id.substring(0, id.indexOf('#')), score, text, "Title " + id, meta);
  }

  @Test
  void bestPassagesSitAtBothEdges() {
    assertEquals(List.of(1, 3, 5, 4, 2), ContextAssembler.edgesFirst(List.of(1, 2, 3, 4, 5)));
    assertEquals(List.of(1, 3, 4, 2), ContextAssembler.edgesFirst(List.of(1, 2, 3, 4)));
    assertEquals(List.of(1), ContextAssembler.edgesFirst(List.of(1)));
  }

  @Test
  void packsBestFirstIntoTheBudgetSkippingWhatDoesNotFit() {
    List<SearchHit> hits = List.of(
        hit("a#0", 0.9, "one two three", Map.of("source_uri", "file:/corpus/guide.md", "breadcrumb", "Install > Linux")),
        hit("b#0", 0.8, "w ".repeat(50), Map.of()),
        hit("c#0", 0.7, "four five", Map.of()),
        hit("d#0", 0.6, "six", Map.of()));
    AssembledContext ctx = new ContextAssembler(ContextAssemblerTest::words, ParentLookup.NONE, 30)
        .assemble(new SearchResponse("snap", SearchMode.HYBRID, hits));
    // b does not fit; a, c, d do: edges-first order puts a first and c last.
    assertEquals(List.of("a#0", "d#0", "c#0"), ctx.blocks().stream().map(ContextBlock::chunkId).toList());
    assertEquals(1, ctx.dropped());
    assertTrue(ctx.tokens() <= 30, "used " + ctx.tokens());
    assertEquals(ctx.blocks().stream().mapToInt(ContextBlock::tokens).sum(), ctx.tokens());
    ContextBlock first = ctx.blocks().get(0);
    assertEquals("[1] file:/corpus/guide.md › Install > Linux (score 0.9000)", first.header());
    assertEquals("[3] c › Title c#0 (score 0.7000)", ctx.blocks().get(2).header());
    assertTrue(ctx.text().startsWith("[1] file:/corpus/guide.md › Install > Linux (score 0.9000)\none two three\n\n[4] d"),
        ctx.text());
  }

  @Test
  void parentsReplaceChildrenAndAreNotRepeated() {
    ParentLookup parents = h -> h.docId().equals("p")
        ? Optional.of(new ParentLookup.Parent("p/section-1", "the whole parent section"))
        : Optional.empty();
    List<SearchHit> hits = List.of(hit("p#3", 0.9, "child one", Map.of()),
        hit("q#0", 0.8, "other", Map.of()), hit("p#4", 0.7, "child two", Map.of()));
    AssembledContext ctx = new ContextAssembler(ContextAssemblerTest::words, parents, 1000)
        .assemble(new SearchResponse("snap", SearchMode.HYBRID, hits));
    assertEquals(List.of("p#3", "q#0"), ctx.blocks().stream().map(ContextBlock::chunkId).toList());
    assertEquals("the whole parent section", ctx.blocks().get(0).text());
  }

  @Test
  void nothingRetrievedGivesNoContextAndSaysWhy() {
    AssembledContext ctx = new ContextAssembler(ContextAssemblerTest::words, null, 100)
        .assemble(new SearchResponse("snap", SearchMode.BM25, List.of()));
    assertEquals(List.of(), ctx.blocks());
    assertEquals("no relevant context", ctx.reason());
    assertEquals("", ctx.text());
  }
}
