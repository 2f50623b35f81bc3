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
    List<List<Keyed>> legs = new ArrayList<>(legCount);
    for (int l = 0; l < legCount; l++) {
      List<Keyed> joined = new ArrayList<>();
      int depth = groups.get(0).get(l).depth();
      for (List<ShardGroupSearch.Leg> g : groups) {
        for (ShardGroupSearch.Hit h : g.get(l).hits()) {
          joined.add(new Keyed(starts[h.shard()] + h.doc(), h));
        }
      }
      joined.sort(Comparator.comparingDouble((Keyed c) -> -c.hit().score()).thenComparingLong(Keyed::global));
      legs.add(joined.size() > depth ? new ArrayList<>(joined.subList(0, depth)) : joined);
    }
    if (legCount == 1) {
      List<Keyed> only = legs.get(0);
      List<Merged> out = new ArrayList<>(Math.min(k, only.size()));
      for (Keyed c : only.subList(0, Math.min(k, only.size()))) {
        out.add(new Merged(c.hit().shard(), c.hit().doc(), c.hit().score()));
      }
      return out;
    }
    Map<String, ShardGroupSearch.Hit> byKey = new HashMap<>();
    List<List<ScoredId>> rankings = new ArrayList<>(legCount);
    for (List<Keyed> leg : legs) {
      List<ScoredId> ranking = new ArrayList<>(leg.size());
      for (Keyed c : leg) {
        String key = key(c.global());
        byKey.putIfAbsent(key, c.hit());
        ranking.add(new ScoredId(key, c.hit().score()));
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
