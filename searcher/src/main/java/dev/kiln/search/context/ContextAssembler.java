package dev.kiln.search.context;

import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * Packs retrieved chunks into an LLM context:
 *
 * <ol>
 *   <li>each chunk is replaced by its parent when the snapshot has one, and a parent already taken
 *       for a better-ranked child is not repeated;
 *   <li>passages are taken best first while they fit the token budget (header included, counted by
 *       the model's tokenizer); one that does not fit is skipped so a smaller later one may still
 *       fit;
 *   <li>the kept passages are ordered against "lost in the middle" (Liu et al., 2023: models use
 *       the start and end of a long context best): ranks 1, 3, 5, … from the start, then …, 4, 2
 *       towards the end, so the two best passages sit at the two edges.
 * </ol>
 */
public final class ContextAssembler {
  /**
   * The metadata key ingestion stores a chunk's source file under (MetadataExtractor's
   * {@code source_uri}); a chunk without one (a changelog upsert) is labelled with its document id.
   */
  static final String SOURCE_KEY = "source_uri";

  /** Tokens between passages in the plain-text rendering (the blank line). */
  private static final int SEPARATOR_TOKENS = 1;

  private final ToIntFunction<String> tokenCounter;
  private final ParentLookup parents;
  private final int budget;

  public ContextAssembler(ToIntFunction<String> tokenCounter, ParentLookup parents, int budget) {
    if (budget < 1) {
      throw new IllegalArgumentException("token budget must be >= 1, was " + budget);
    }
    this.tokenCounter = tokenCounter;
    this.parents = parents == null ? ParentLookup.NONE : parents;
    this.budget = budget;
  }

  public AssembledContext assemble(SearchResponse response) {
    List<ContextBlock> kept = new ArrayList<>();
    Set<String> seenParents = new HashSet<>();
    int used = 0;
    int dropped = 0;
    int rank = 0;
    for (SearchHit hit : response.results()) {
      Optional<ParentLookup.Parent> parent = parents.parentOf(hit);
      if (parent.isPresent() && !seenParents.add(parent.get().id())) {
        continue; // a better-ranked sibling already brought this parent in
      }
      rank++;
      String text = parent.map(ParentLookup.Parent::text).orElse(hit.text());
      String source = hit.metadata().getOrDefault(SOURCE_KEY, hit.docId());
      String breadcrumb = hit.metadata().getOrDefault("breadcrumb", hit.title());
      ContextBlock draft = new ContextBlock(rank, hit.chunkId(), hit.docId(), source, breadcrumb,
          hit.score(), 0, text);
      int tokens = tokenCounter.applyAsInt(draft.header()) + tokenCounter.applyAsInt(text.strip())
          + (kept.isEmpty() ? 0 : SEPARATOR_TOKENS);
      if (used + tokens > budget) {
        dropped++;
        continue;
      }
      used += tokens;
      kept.add(new ContextBlock(rank, hit.chunkId(), hit.docId(), source, breadcrumb, hit.score(),
          tokens, text));
    }
    String reason = kept.isEmpty()
        ? (response.results().isEmpty() ? SearchResponse.NO_RELEVANT_CONTEXT : "no passage fits the token budget")
        : null;
    return new AssembledContext(response.snapshotId(), budget, used, edgesFirst(kept), dropped, reason);
  }

  /** Best-first list → best at both edges, weakest in the middle. */
  static <T> List<T> edgesFirst(List<T> bestFirst) {
    List<T> front = new ArrayList<>();
    List<T> back = new ArrayList<>();
    for (int i = 0; i < bestFirst.size(); i++) {
      (i % 2 == 0 ? front : back).add(bestFirst.get(i));
    }
    for (int i = back.size() - 1; i >= 0; i--) {
      front.add(back.get(i));
    }
    return front;
  }
}
