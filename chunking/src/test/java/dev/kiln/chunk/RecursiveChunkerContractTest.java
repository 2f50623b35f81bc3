package dev.kiln.chunk;

import dev.kiln.model.Document;

/** {@link ChunkerContract} for {@link RecursiveChunker} on plain text. */
class RecursiveChunkerContractTest extends ChunkerContract {
  @Override
  protected Chunker chunker(int size, int overlap, int hardCap) {
    return new RecursiveChunker(tokenizer, size, overlap);
  }

  @Override
  protected Document document(String id, String title, String text) {
    return text(id, title, text);
  }

  @Override
  protected String randomText(RandomDocuments gen) {
    return gen.text(0.2);
  }
}
