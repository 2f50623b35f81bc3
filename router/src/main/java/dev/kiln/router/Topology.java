package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the router checks before it serves, from every replica's {@code describe}: one snapshots root,
 * one model, one search plan, every replica of a group serving the same shards, and the groups
 * together serving every shard of the snapshot once. And, while serving, which snapshot a search
 * is pinned to ({@link #pin}).
 */
final class Topology {
  /**
   * The shard group protocol this router speaks (docs/FORMATS.md): 2 adds hybrid feedback's phases, 3
   * {@code /context} and federated roots, 4 the client's key in {@code X-Kiln-Client-Key}, 5 the
   * {@code parents} phase (a routed {@code /context} gives every group's hits their parents), 6 per-request
   * retrieval options (the plan they make in {@code stats}' {@code effective}).
   */
  static final int PROTOCOL = 6;

  private Topology() {}

  /**
   * @param described each group's replicas' {@code describe} answers (null: the replica did not answer)
   * @param urls the replicas' URLs, for messages
   * @return each group's shards ({@code 0-1})
   * @throws IllegalArgumentException saying what disagrees with what, and which replica
   */
  static List<String> check(List<List<JsonNode>> described, List<List<String>> urls) {
    String root = null;
    String rootFrom = null;
    JsonNode plan = null;
    String planFrom = null;
    List<String> shards = new ArrayList<>();
    int shardCount = -1;
    for (int g = 0; g < described.size(); g++) {
      String groupShards = null;
      for (int r = 0; r < described.get(g).size(); r++) {
        JsonNode d = described.get(g).get(r);
        String url = urls.get(g).get(r);
        if (d == null) {
          continue;
        }
        if (d.hasNonNull("unsupported")) {
          throw new IllegalArgumentException("replica " + url + " cannot serve as a shard group: "
              + d.get("unsupported").asText());
        }
        if (d.path("protocol").asInt(1) != PROTOCOL) {
          throw new IllegalArgumentException("replica " + url + " speaks shard group protocol "
              + d.path("protocol").asInt(1) + ", this router " + PROTOCOL + ": run the same Kiln version on both");
        }
        JsonNode p = d.path("plan");
        // The model first: a replica of another model most likely serves another root as well, and
        // the model is what makes its answers meaningless here.
        if (plan != null && !plan.path("model").equals(p.path("model"))) {
          throw new IllegalArgumentException("replica " + url + " serves snapshots of model " + p.path("model").asText()
              + " but " + planFrom + " of model " + plan.path("model").asText() + ": one router, one model");
        }
        if (root == null) {
          root = d.path("root").asText();
          rootFrom = url;
        } else if (!root.equals(d.path("root").asText())) {
          throw new IllegalArgumentException("replica " + url + " serves snapshots root " + d.path("root").asText()
              + " but " + rootFrom + " serves " + root + ": every group must serve the same root (to search several"
              + " roots as one, name each with --root)");
        }
        if (plan == null) {
          plan = p;
          planFrom = url;
          shardCount = p.path("shard_count").asInt();
        } else if (!plan.equals(p)) {
          throw new IllegalArgumentException("replica " + url + " searches with " + p + " but " + planFrom
              + " with " + plan + ": start every group with the same search options");
        }
        String s = d.path("shards").asText();
        if (groupShards == null) {
          groupShards = s;
        } else if (!groupShards.equals(s)) {
          throw new IllegalArgumentException("replica " + url + " serves shards " + s + " but the other replicas of its"
              + " group serve " + groupShards + ": a --group lists replicas of the same shards");
        }
      }
      if (groupShards == null) {
        throw new IllegalArgumentException("no replica of group " + g + " " + urls.get(g)
            + " answered: start the group's servers first (kiln serve --shards A-B)");
      }
      shards.add(groupShards);
    }
    checkCoverage(shards, shardCount);
    return shards;
  }

  /**
   * Which groups serve which root: with no {@code roots}, all of them one; otherwise each group by the
   * root its replicas describe, in {@code roots} order.
   *
   * @return each root's group indexes
   * @throws IllegalArgumentException when a group serves a root no {@code --root} names, or a root has
   *     no group, or no replica of a group answered
   */
  static List<List<Integer>> partition(List<List<JsonNode>> described, List<List<String>> urls,
      List<RouterConfig.Root> roots) {
    List<List<Integer>> out = new ArrayList<>();
    if (roots.isEmpty()) {
      List<Integer> all = new ArrayList<>();
      for (int g = 0; g < described.size(); g++) {
        all.add(g);
      }
      out.add(all);
      return out;
    }
    List<String> labels = roots.stream().map(RouterConfig.Root::label).toList();
    labels.forEach(l -> out.add(new ArrayList<>()));
    for (int g = 0; g < described.size(); g++) {
      List<String> groupUrls = urls.get(g);
      String root = described.get(g).stream().filter(d -> d != null).findFirst().map(d -> d.path("root").asText())
          .orElseThrow(() -> new IllegalArgumentException("no replica of group " + groupUrls
              + " answered: start the group's servers first (kiln serve --shards A-B)"));
      int at = labels.indexOf(root);
      if (at < 0) {
        throw new IllegalArgumentException("group " + urls.get(g) + " serves root " + root + ", which no --root names"
            + " (" + labels + "): name every federated root with --root, as kiln serve --snapshots names it");
      }
      out.get(at).add(g);
    }
    for (int r = 0; r < labels.size(); r++) {
      if (out.get(r).isEmpty()) {
        throw new IllegalArgumentException("no --group serves root " + labels.get(r)
            + ": start its groups (kiln serve --snapshots " + labels.get(r) + " --shards A-B) and name them");
      }
    }
    return out;
  }

  /**
   * Federated roots must be searched with one set of options, as one {@code kiln serve --snapshots A
   * --snapshots B} searches them: the plans may differ only in the model and the shard count.
   *
   * @param plans each root's plan, in {@code roots} order
   */
  static void checkFederation(List<JsonNode> plans, List<RouterConfig.Root> roots) {
    if (roots.isEmpty()) {
      return;
    }
    JsonNode first = withoutRootOwn(plans.get(0));
    for (int r = 1; r < plans.size(); r++) {
      JsonNode p = withoutRootOwn(plans.get(r));
      if (!first.equals(p)) {
        throw new IllegalArgumentException("root " + roots.get(r).label() + " is searched with " + p + " but root "
            + roots.get(0).label() + " with " + first + ": start every group with the same search options, as one"
            + " kiln serve of every root would have them");
      }
    }
  }

  /**
   * Refuses groups started with a reranker when the router has none: the router reranks the merged
   * candidates itself (the groups never do), so without {@code kiln route --rerank-model} it would answer
   * what one server without the reranker answers.
   */
  static void checkReranker(List<JsonNode> plans, Path rerankModel) {
    if (rerankModel != null) {
      return;
    }
    for (JsonNode plan : plans) {
      if (plan.hasNonNull("reranker")) {
        throw new IllegalArgumentException("the groups are started with a reranker (--rerank-model "
            + plan.get("reranker").asText() + "), which the router runs on the merged candidates: start kiln route"
            + " with --rerank-model naming the same model directory");
      }
    }
  }

  private static JsonNode withoutRootOwn(JsonNode plan) {
    ObjectNode copy = plan.deepCopy();
    copy.remove("model");
    copy.remove("shard_count");
    return copy;
  }

  private static void checkCoverage(List<String> shards, int shardCount) {
    boolean[] seen = new boolean[shardCount];
    for (int g = 0; g < shards.size(); g++) {
      String s = shards.get(g);
      if (s.equals("all")) {
        throw new IllegalArgumentException("group " + g + " serves every shard: start group servers with --shards");
      }
      String[] ends = s.split("-");
      int from = Integer.parseInt(ends[0]);
      int to = Integer.parseInt(ends[ends.length - 1]);
      for (int i = from; i <= to; i++) {
        if (i >= shardCount || seen[i]) {
          throw new IllegalArgumentException("shard " + i + " is served by two groups or is past the snapshot's "
              + shardCount + " shards: the groups' --shards ranges must not overlap");
        }
        seen[i] = true;
      }
    }
    for (int i = 0; i < shardCount; i++) {
      if (!seen[i]) {
        throw new IllegalArgumentException("no group serves shard " + i + " of " + shardCount
            + ": add a --group whose servers run --shards with it");
      }
    }
  }

  /**
   * The snapshot a search is computed on: one that some live replica of every group holds open,
   * preferring one that is some replica's current snapshot, and of those the newest (ids sort by
   * creation time). While a new snapshot rolls out, groups that switched keep the old one open, so
   * the old one stays common until every group has the new one; then the new one is chosen.
   *
   * @param groups the groups considered (a partial answer leaves out those with no live replica)
   * @return the id, or null when no snapshot is held by every group
   */
  static String pin(List<GroupClient> groups) {
    Set<String> common = null;
    Set<String> currents = new HashSet<>();
    for (GroupClient g : groups) {
      Set<String> ids = new LinkedHashSet<>();
      for (Replica r : g.replicas()) {
        if (r.alive()) {
          ids.addAll(r.held());
          if (r.current() != null) {
            currents.add(r.current());
          }
        }
      }
      if (common == null) {
        common = ids;
      } else {
        common.retainAll(ids);
      }
    }
    if (common == null || common.isEmpty()) {
      return null;
    }
    String best = null;
    boolean bestCurrent = false;
    for (String id : common) {
      boolean current = currents.contains(id);
      if (best == null || (current && !bestCurrent) || (current == bestCurrent && id.compareTo(best) > 0)) {
        best = id;
        bestCurrent = current;
      }
    }
    return best;
  }
}
