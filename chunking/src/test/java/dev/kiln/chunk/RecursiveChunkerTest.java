package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The delimiter hierarchy: paragraphs before lines before sentences (Chinese ones too) before words. */
class RecursiveChunkerTest {

  @Test
  void paragraphsThatFitAreNeverCut() {
    try (ModelTokenizer tok = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL))) {
      String p1 = "The shard merger verifies every shard. It compares document counts.";
      String p2 = "The manifest lists every file with its size and checksum.";
      String p3 = "CURRENT is replaced atomically, so readers never see half a snapshot.";
      String text = p1 + "\n\n" + p2 + "\n\n" + p3;
      int size = Math.max(tok.countTokens(p1 + "\n\n" + p2), tok.countTokens(p3)) ;
      List<Chunk> chunks = new RecursiveChunker(tok, size, 0).chunk(new Document("d", "", text, Map.of(), "mem:"));
      assertEquals(List.of(p1 + "\n\n" + p2, p3), chunks.stream().map(Chunk::text).toList());
    }
  }

  @Test
  void chineseIsCutAtSentenceEnds() {
    try (ModelTokenizer tok = ModelTokenizer.open(ModelRegistry.resolve("bge-small-zh-v15-q"))) {
      String text = "快照发布之前，合并器校验每一个分片。清单记录每个文件的大小和校验和！"
          + "读者只跟随指针读取快照？中文文档使用智能中文分词器；查询也使用同样的分词器。";
      List<Chunk> chunks = new RecursiveChunker(tok, 24, 0).chunk(new Document("zh", "", text, Map.of(), "mem:"));
      assertTrue(chunks.size() >= 3, chunks.toString());
      for (Chunk c : chunks) {
        char last = c.text().charAt(c.text().length() - 1);
        assertTrue("。！？；".indexOf(last) >= 0, "chunk does not end at a sentence end: " + c.text());
        assertTrue(c.tokens() <= 24);
      }
      assertEquals(text, String.join("", chunks.stream().map(Chunk::text).toList()));
    }
  }
}
