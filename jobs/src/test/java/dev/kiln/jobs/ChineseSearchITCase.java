package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kiln.config.BuildConfig;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chinese documents end to end with the Chinese model ({@code bge-small-zh-v15-q}): chunked with its
 * tokenizer, BM25-indexed with smartcn (language from metadata or detected), and a Chinese query finds
 * the right Chinese chunk in bm25, dense and hybrid modes; English documents in the same snapshot
 * stay findable.
 */
class ChineseSearchITCase {
  @TempDir static Path work;
  static Path root;

  @BeforeAll
  static void build() throws Exception {
    root = work.resolve("snapshots");
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(Path.of(ChineseSearchITCase.class.getResource("/chinese/corpus.jsonl").toURI()).toString());
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    config.embed.model = "bge-small-zh-v15-q";
    new SnapshotBuilder(config.validate(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));
  }

  @Test
  void bm25FindsChineseWordsSegmentedBySmartcn() {
    try (Searcher s = Searcher.open(root)) {
      assertEquals("zh-tea", top(s, "西湖龙井绿茶", SearchMode.BM25));
      assertEquals("zh-rail", top(s, "京沪高铁的速度", SearchMode.BM25));
      assertEquals("zh-moon", top(s, "月壤样品", SearchMode.BM25));
      assertEquals("en-volcano", top(s, "viscous magma eruptions", SearchMode.BM25));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void bm25MatchesSegmentedWordsNotSingleCharacters() {
    // 北京 is one word in zh-rail; zh-dumpling has 北方 (北 + 方). Per-character analysis would match both.
    try (Searcher s = Searcher.open(root)) {
      List<String> docs =
          s.search("北京", SearchMode.BM25, 10).results().stream().map(SearchHit::docId).distinct().toList();
      assertEquals(List.of("zh-rail"), docs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void denseFindsChineseParaphrases() {
    try (Searcher s = Searcher.open(root)) {
      assertEquals("zh-panda", top(s, "熊猫平时吃什么东西", SearchMode.DENSE));
      assertEquals("zh-moon", top(s, "探月任务把土壤带回来", SearchMode.DENSE));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void hybridFindsTheRightChineseChunk() {
    try (Searcher s = Searcher.open(root)) {
      assertEquals("zh-dumpling", top(s, "除夕夜吃饺子", SearchMode.HYBRID));
      assertEquals("zh-tea", top(s, "杭州的绿茶怎么制作", SearchMode.HYBRID));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String top(Searcher searcher, String query, SearchMode mode) {
    List<SearchHit> hits = searcher.search(query, mode, 3).results();
    assertFalse(hits.isEmpty(), "no results for " + query);
    return hits.get(0).docId();
  }
}
