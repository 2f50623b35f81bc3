package dev.kiln.chunk;

import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive chunking ({@link RecursiveSplitter}) in the model's own tokens. A chunk's text is the
 * exact source span of its tokens.
 *
 * <p>Against token windows on Cranfield, measured 2026-12-02 (1,398 documents, 225 queries, {@code all-minilm-l6-v2-q},
 * overlap = size / 8, 2 shards; {@code scripts/kiln build --corpus ../shared/datasets/cranfield/corpus.jsonl
 * --snapshots DIR --chunker S --chunk-size N --chunk-overlap N/8}, then {@code scripts/kiln eval
 * --snapshots DIR --queries ... --qrels ... --mode M --json}):
 *
 * <pre>
 * chunker     size   chunks   nDCG@10 bm25   nDCG@10 hybrid   Recall@100 bm25   Recall@100 hybrid
 * window        64    5,397         0.3421           0.3953            0.7216              0.7743
 * recursive     64    6,494         0.3414           0.3960            0.7161              0.7729
 * window       128    2,944         0.3614           0.4049            0.7195              0.7802
 * recursive    128    3,129         0.3591           0.4188            0.7232              0.7810
 * </pre>
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
