package dev.kiln.search;

import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.ScoredId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The router's merge of the groups' legs ({@link ShardGroupSearch#legs}) into the ranking one process
 * over every shard returns: each leg's lists joined and cut to the leg's depth in Lucene's order (best
 * score first, ties by the single process's doc id), then, for hybrid, the searcher's own {@link
 * Fusion} over those whole-snapshot rankings, keyed as {@link HybridRetriever} keys them, so that
 * min-max normalisation sees the union and ties break in index order as they do there.
 */
public final class ShardMerge {
  private ShardMerge() {}

  /** A merged candidate: its shard, its doc in that shard, its final score. */
  public record Merged(int shard, int doc, double score) {}

  /**
   * Where each shard's doc ids start in the single process: the shards in number order, each after
   * the maxDocs of those before it.
   *
   * @param stats every group's statistics (their shards together must be every shard, once)
   * @throws IllegalStateException when the groups do not cover the snapshot's shards exactly once
   */
  public static long[] shardStarts(List<ShardGroupSearch.Stats> stats) {
    return shardStarts(stats, false);
  }

  /**
   * {@link #shardStarts(List)}; with {@code partial}, shards no group answered for count as empty (a
   * partial answer, which names them).
   */
  public static long[] shardStarts(List<ShardGroupSearch.Stats> stats, boolean partial) {
    int count = stats.get(0).plan().shardCount();
    long[] maxDocs = new long[count];
    boolean[] seen = new boolean[count];
    for (ShardGroupSearch.Stats s : stats) {
      for (int i = 0; i < s.shards().length; i++) {
        int shard = s.shards()[i];
        if (shard >= count || seen[shard]) {
          throw new IllegalStateException("shard " + shard + " is served by two groups or is not in the snapshot");
        }
        seen[shard] = true;
        maxDocs[shard] = s.shardMaxDocs()[i];
      }
    }
    long[] starts = new long[count];
    long at = 0;
    for (int i = 0; i < count; i++) {
      if (!seen[i] && !partial) {
        throw new IllegalStateException("no group serves shard " + i);
      }
      starts[i] = at;
      at += maxDocs[i];
    }
    return starts;
  }

  /**
   * @param groups each group's legs, all in the same leg order
   * @param starts {@link #shardStarts}
   * @param fusion the fusion of a hybrid search (unused with one leg)
   */
  public static List<Merged> merge(List<List<ShardGroupSearch.Leg>> groups, long[] starts, int k, Fusion fusion) {
    int legCount = groups.get(0).size();
    List<List<ShardGroupSearch.Hit>> legs = new ArrayList<>(legCount);
    for (int l = 0; l < legCount; l++) {
      List<ShardGroupSearch.Leg> parts = new ArrayList<>(groups.size());
      for (List<ShardGroupSearch.Leg> g : groups) {
        parts.add(g.get(l));
      }
      legs.add(join(parts, starts));
    }
    if (legCount == 1) {
      List<ShardGroupSearch.Hit> only = legs.get(0);
      List<Merged> out = new ArrayList<>(Math.min(k, only.size()));
      for (ShardGroupSearch.Hit h : only.subList(0, Math.min(k, only.size()))) {
        out.add(new Merged(h.shard(), h.doc(), h.score()));
      }
      return out;
    }
    return fuse(legs, starts, k, fusion);
  }

  /**
   * One leg's parts from every group joined into the single process's list: best score first, ties
   * by its doc id, cut to the leg's depth.
   */
  public static List<ShardGroupSearch.Hit> join(List<ShardGroupSearch.Leg> parts, long[] starts) {
    List<ShardGroupSearch.Hit> joined = new ArrayList<>();
    for (ShardGroupSearch.Leg part : parts) {
      joined.addAll(part.hits());
    }
    List<ShardGroupSearch.Hit> sorted = bestFirst(joined, starts);
    int depth = parts.get(0).depth();
    return sorted.size() > depth ? new ArrayList<>(sorted.subList(0, depth)) : sorted;
  }

  /** {@code hits} best score first, ties by the single process's doc id (Lucene's order). */
  public static List<ShardGroupSearch.Hit> bestFirst(List<ShardGroupSearch.Hit> hits, long[] starts) {
    List<Keyed> keyed = new ArrayList<>(hits.size());
    for (ShardGroupSearch.Hit h : hits) {
      keyed.add(new Keyed(starts[h.shard()] + h.doc(), h));
    }
    keyed.sort(Comparator.comparingDouble((Keyed c) -> -c.hit().score()).thenComparingLong(Keyed::global));
    List<ShardGroupSearch.Hit> out = new ArrayList<>(keyed.size());
    for (Keyed c : keyed) {
      out.add(c.hit());
    }
    return out;
  }

  /**
   * Whole-snapshot leg lists ({@link #join}) fused and cut to {@code k} as {@link HybridRetriever}
   * fuses them: keyed by the single process's doc ids, so that ties break in index order.
   */
  public static List<Merged> fuse(List<List<ShardGroupSearch.Hit>> legs, long[] starts, int k, Fusion fusion) {
    Map<String, ShardGroupSearch.Hit> byKey = new HashMap<>();
    List<List<ScoredId>> rankings = new ArrayList<>(legs.size());
    for (List<ShardGroupSearch.Hit> leg : legs) {
      List<ScoredId> ranking = new ArrayList<>(leg.size());
      for (ShardGroupSearch.Hit h : leg) {
        String key = key(starts[h.shard()] + h.doc());
        byKey.putIfAbsent(key, h);
        ranking.add(new ScoredId(key, h.score()));
      }
      rankings.add(ranking);
    }
    List<Merged> out = new ArrayList<>(k);
    for (ScoredId f : fusion.fuse(rankings, k)) {
      ShardGroupSearch.Hit h = byKey.get(f.id());
      out.add(new Merged(h.shard(), h.doc(), f.score()));
    }
    return out;
  }

  /** {@link HybridRetriever#key}, for doc ids of a snapshot past an int's range as well. */
  static String key(long doc) {
    return doc <= Integer.MAX_VALUE ? HybridRetriever.key((int) doc) : Long.toString(doc);
  }

  private record Keyed(long global, ShardGroupSearch.Hit hit) {}
}
