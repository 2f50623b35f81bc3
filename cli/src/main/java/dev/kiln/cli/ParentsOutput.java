package dev.kiln.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.search.parents.ParentExpander;
import dev.kiln.search.parents.ParentHit;
import dev.kiln.search.parents.ParentStore;
import dev.kiln.snapshot.SnapshotException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code kiln search --expand parents}: retrieves children, answers with their deduplicated parents.
 * JSON: {@code {"snapshot", "mode", "expand": "parents", "results": [{"parent_id", "doc_id", "score",
 * "title", "breadcrumb", "text", "child_ids"}…]}}.
 */
final class ParentsOutput {
  private ParentsOutput() {}

  /** @param root the local snapshots root {@code searcher} was opened from */
  static int search(Searcher searcher, Path root, String q, SearchMode mode, int k, boolean json) throws Exception {
    if (searcher.manifest().docstore() == null) {
      throw new SnapshotException("snapshot " + searcher.manifest().id() + " has no parents docstore: build it with"
          + " --parents TOKENS (chunker.parents.enabled: true) to use --expand parents");
    }
    try (ParentStore store = ParentStore.open(root, searcher.manifest())) {
      int depth = Math.min(1000, k * ParentExpander.CHILDREN_PER_PARENT);
      List<ParentHit> parents = ParentExpander.expand(searcher.search(q, mode, depth).results(), store, k);
      String modeName = mode.name().toLowerCase(Locale.ROOT);
      if (json) {
        ObjectMapper m = new ObjectMapper();
        ObjectNode out = m.createObjectNode();
        out.put("snapshot", searcher.snapshotId());
        out.put("mode", modeName);
        out.put("expand", "parents");
        out.set("results", m.valueToTree(parents));
        System.out.println(m.writeValueAsString(out));
      } else {
        System.out.printf(Locale.ROOT, "snapshot %s, mode %s, parents, query: %s%n", searcher.snapshotId(), modeName, q);
        int rank = 1;
        for (ParentHit p : parents) {
          String text = p.text().replaceAll("\\s+", " ").strip();
          if (text.length() > 240) {
            text = text.substring(0, 237) + "...";
          }
          System.out.printf(Locale.ROOT, "%2d. %.4f  %s  [%s]  (%d children)%n    %s%n", rank++, p.score(),
              p.parentId(), p.breadcrumb(), p.childIds().size(), text);
        }
        if (parents.isEmpty()) {
          System.out.println("(no results)");
        }
      }
    }
    return Kiln.OK;
  }
}
