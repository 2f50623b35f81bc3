package dev.kiln.chunk;

import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.util.ArrayList;
import java.util.List;

/**
 * Sliding token window with overlap, counted with the embedding model's own tokenizer. A chunk's
 * text is the exact source span from its first token's first character to its last token's last
 * character, so chunks never split a token and text between tokens (whitespace) is kept as written.
 */
public final class TokenWindowChunker implements Chunker {
  private final ModelTokenizer tokenizer;
  private final int size;
  private final int overlap;

  public TokenWindowChunker(ModelTokenizer tokenizer, int size, int overlap) {
    this.tokenizer = tokenizer;
    this.size = size;
    this.overlap = overlap;
  }

  @Override
  public List<Chunk> chunk(Document doc) {
    String text = doc.text();
    TokenSpans spans = TokenSpans.of(tokenizer, text);
    List<Chunk> chunks = new ArrayList<>();
    List<int[]> windows = TokenWindows.windows(spans.size(), size, overlap);
    for (int i = 0; i < windows.size(); i++) {
      int[] w = windows.get(i);
      int from = spans.start(w[0]);
      int to = spans.end(w[1] - 1);
      chunks.add(new Chunk(Chunk.chunkId(doc.id(), i), doc.id(), i, doc.title(),
          text.substring(from, to), from, to, w[1] - w[0], doc.metadata()));
    }
    if (chunks.isEmpty() && !doc.title().isBlank()) {
      // A document with a title but no body is still findable by its title.
      chunks.add(new Chunk(Chunk.chunkId(doc.id(), 0), doc.id(), 0, doc.title(), "", 0, 0, 0,
          doc.metadata()));
    }
    return chunks;
  }
}
