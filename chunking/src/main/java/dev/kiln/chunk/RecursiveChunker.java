package dev.kiln.chunk;

import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive chunking ({@link RecursiveSplitter}) in the model's own tokens. A chunk's text is the
 * exact source span of its tokens.
 */
public final class RecursiveChunker implements Chunker {
  private final ModelTokenizer tokenizer;
  private final RecursiveSplitter splitter;

  public RecursiveChunker(ModelTokenizer tokenizer, int size, int overlap) {
    this.tokenizer = tokenizer;
    this.splitter = new RecursiveSplitter(size, overlap);
  }

  @Override
  public List<Chunk> chunk(Document doc) {
    TokenSpans spans = TokenSpans.of(tokenizer, doc.text());
    List<Chunk> chunks = new ArrayList<>();
    for (int[] r : splitter.split(spans, 0, spans.size())) {
      int i = chunks.size();
      int from = spans.start(r[0]);
      int to = spans.end(r[1] - 1);
      chunks.add(new Chunk(Chunk.chunkId(doc.id(), i), doc.id(), i, doc.title(),
          doc.text().substring(from, to), from, to, r[1] - r[0], doc.metadata()));
    }
    if (chunks.isEmpty() && !doc.title().isBlank()) {
      chunks.add(new Chunk(Chunk.chunkId(doc.id(), 0), doc.id(), 0, doc.title(), "", 0, 0, 0,
          doc.metadata()));
    }
    return chunks;
  }
}
