package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chinese chunks are indexed as smartcn words; other chunks go through the shard's analyzer. */
class ChineseAnalysisTest {
  @TempDir Path dir;

  @Test
  void chineseChunksAreSegmentedIntoWords() throws Exception {
    try (ShardIndexWriter w = new ShardIndexWriter(dir.resolve("s"), new IndexConfig(), 2)) {
      w.add(chunk("zh#0", "中文文档使用智能分词器建立倒排索引", "zh"));
      w.add(chunk("en#0", "Indexes are built offline", ""));
    }
    Set<String> terms = new HashSet<>();
    try (FSDirectory d = FSDirectory.open(dir.resolve("s")); DirectoryReader r = DirectoryReader.open(d)) {
      for (var ctx : r.leaves()) {
        LeafReader leaf = ctx.reader();
        Terms t = leaf.terms(ShardSchema.TEXT);
        TermsEnum e = t.iterator();
        for (BytesRef b = e.next(); b != null; b = e.next()) {
          terms.add(b.utf8ToString());
        }
      }
    }
    // smartcn keeps words whole; a Western analyzer would have indexed single characters only.
    assertTrue(terms.contains("索引") && terms.contains("中文"), terms.toString());
    assertFalse(terms.contains("索"), terms.toString());
    // The English chunk is stemmed by the shard's English analyzer.
    assertTrue(terms.contains("index") && terms.contains("built"), terms.toString());
  }

  @Test
  void languageFromMetadataElseHanShare() {
    assertEquals("zh", Languages.of(Map.of("language", "zh-Hans"), "English text only"));
    assertEquals("", Languages.of(Map.of("lang", "en"), "全是中文的文本"));
    assertEquals("zh", Languages.of(Map.of(), "Kiln 离线构建检索索引，快照发布后校验。"));
    assertEquals("", Languages.of(Map.of(), "An English text that mentions 中文 once."));
  }

  private static EmbeddedChunk chunk(String id, String text, String language) {
    String doc = id.substring(0, id.indexOf('#'));
    return new EmbeddedChunk(new Chunk(id, doc, 0, "", text, 0, text.length(), 4, Map.of(), "", "k", null,
        false, language), new float[] {1f, 0f});
  }
}
