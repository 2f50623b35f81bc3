package dev.kiln.chunk;

import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import java.util.Map;

/**
 * {@link ChunkerContract} for {@link StructureChunker} on HTML: offsets and texts refer to the text
 * extracted from the markup (page furniture dropped), not to the markup.
 */
class HtmlStructureChunkerContractTest extends ChunkerContract {
  @Override
  protected Chunker chunker(int size, int overlap, int hardCap) {
    return new StructureChunker(tokenizer, size, overlap, hardCap);
  }

  @Override
  protected Document document(String id, String title, String text) {
    return new Document(id, title, text, Map.of(), "mem:", ContentType.HTML);
  }

  @Override
  protected String randomText(RandomDocuments gen) {
    return gen.html();
  }

  @Override
  protected String source(Document doc) {
    return HtmlStructure.parse(doc.text()).text();
  }

  @Override
  protected boolean keepsBlocksWhole() {
    return true;
  }
}
