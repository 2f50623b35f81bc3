package dev.kiln.search.context;

import dev.kiln.search.SearchHit;
import java.util.Optional;

/**
 * Finds the parent passage of a retrieved chunk, for snapshots built with parent-child chunking
 * (small chunks retrieve well; their larger parent gives the LLM enough to read). Implementations
 * read the snapshot's parents store and must be thread-safe.
 */
public interface ParentLookup {

  /** The parent of {@code hit}, or empty when it has none (the chunk then stands for itself). */
  Optional<Parent> parentOf(SearchHit hit);

  /**
   * A parent passage.
   *
   * @param id unique within the snapshot: children of one parent share it, which is how the
   *     assembler deduplicates
   * @param text the parent's text
   */
  record Parent(String id, String text) {}

  /** For snapshots without parents. */
  ParentLookup NONE = hit -> Optional.empty();
}
