package dev.kiln.search.parents;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.SearchHit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a ranking of child chunks into a ranking of their parents: each parent once, at the rank and
 * score of its best child, with the ids of all its retrieved children. A chunk without a parent
 * stands for itself, so a ranking can be expanded whatever snapshot it came from.
 */
public final class ParentExpander {
  /** Children retrieved per parent wanted: several children of one parent often rank together. */
  public static final int CHILDREN_PER_PARENT = 4;

  private ParentExpander() {}

  public static List<ParentHit> expand(List<SearchHit> children, ParentStore store, int k) {
    Map<String, List<String>> childIds = new LinkedHashMap<>();
    Map<String, SearchHit> best = new LinkedHashMap<>();
    for (SearchHit h : children) {
      String parentId = h.metadata().getOrDefault(ShardSchema.PARENT_ID_KEY, h.chunkId());
      if (!best.containsKey(parentId) && best.size() == k) {
        continue;
      }
      best.putIfAbsent(parentId, h);
      childIds.computeIfAbsent(parentId, id -> new ArrayList<>()).add(h.chunkId());
    }
    List<ParentHit> out = new ArrayList<>(best.size());
    for (Map.Entry<String, SearchHit> e : best.entrySet()) {
      SearchHit h = e.getValue();
      String crumb = h.metadata().getOrDefault(ShardSchema.BREADCRUMB_KEY, "");
      ParentStore.Parent p = h.metadata().containsKey(ShardSchema.PARENT_ID_KEY) && store != null
          ? store.get(e.getKey()).orElse(null) : null;
      out.add(p == null
          ? new ParentHit(e.getKey(), h.docId(), h.score(), h.title(), crumb, h.text(), List.copyOf(childIds.get(e.getKey())))
          : new ParentHit(p.parentId(), p.docId(), h.score(), p.title(), p.breadcrumb(), p.text(),
              List.copyOf(childIds.get(e.getKey()))));
    }
    return out;
  }
}
