package dev.kiln.chunk;

import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import java.util.Map;

/** {@link ChunkerContract} for {@link StructureChunker} on Markdown (headings, lists, code, tables). */
class MarkdownStructureChunkerContractTest extends ChunkerContract {
  @Override
  protected Chunker chunker(int size, int overlap, int hardCap) {
    return new StructureChunker(tokenizer, size, overlap, hardCap);
  }

  @Override
  protected Document document(String id, String title, String text) {
    return new Document(id, title, text, Map.of(), "mem:", ContentType.MARKDOWN);
  }

  @Override
  protected String randomText(RandomDocuments gen) {
    return gen.markdown();
  }

  @Override
  protected boolean keepsBlocksWhole() {
    return true;
  }
}
