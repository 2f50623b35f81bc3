package dev.kiln.chunk;

import dev.kiln.model.Chunk;

/**
 * The text the embedding model sees for a chunk: its context line, then its text. The context is the
 * section breadcrumb when there is one and breadcrumb prefixes are on (a chunk deep in a section
 * otherwise loses what it is about), else the document title.
 */
public final class EmbeddingInput {
  private EmbeddingInput() {}

  public static String of(Chunk c, boolean breadcrumbPrefix) {
    String context = breadcrumbPrefix && !c.breadcrumb().isEmpty() ? c.breadcrumb() : c.title();
    return context.isEmpty() ? c.text() : context + "\n" + c.text();
  }
}
