package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The retriever contract for hybrid as Kiln's defaults compose it (min-max blend, dense and lexical feedback). */
class HybridRetrieverContractTest extends RetrieverContract {
  @Override
  protected Retriever retriever(Searcher searcher) {
    return searcher.retriever(SearchMode.HYBRID);
  }

  @Test
  void hitsAmongTheFeedbackChunksComeWithTheFieldsFeedbackReadAlready() throws IOException {
    List<Candidate> candidates = candidates("magma erupts from a volcano as lava", 5, MetadataFilter.none());
    assertFalse(candidates.isEmpty());
    // The fused top 10 feed RM3 and the top 5 of the final fusion are mostly among them.
    long carried = candidates.stream().filter(c -> c.stored() != null).count();
    assertTrue(carried >= 1, "no hit came with its fields: " + candidates);
    for (Candidate c : candidates) {
      if (c.stored() != null) {
        assertEquals(chunkIdOf(c.doc()), c.stored().get(ShardSchema.CHUNK_ID), "doc " + c.doc());
      }
    }
  }
}
