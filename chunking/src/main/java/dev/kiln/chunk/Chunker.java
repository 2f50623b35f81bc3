package dev.kiln.chunk;

import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.util.List;

/**
 * Cuts a document into chunks. Implementations must be deterministic (same document and settings →
 * same chunks) because chunk ids are {@code docId#ordinal} and must be stable across runs.
 */
public interface Chunker {
  List<Chunk> chunk(Document document);
}
