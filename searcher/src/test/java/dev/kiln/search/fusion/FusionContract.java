package dev.kiln.search.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.testing.TestSeeds;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link Fusion} contract, run against every implementation (each subclass only says how to make
 * one): rankings are lists of ids best first, with scores that fall with the rank. Randomised cases
 * draw from {@link TestSeeds} ({@code -Dkiln.tests.seed}).
 */
@ExtendWith(TestSeeds.class)
public abstract class FusionContract {
  protected abstract Fusion fusion();

  /** A ranking of {@code ids}, best first, scored n, n-1, … 1. */
  static List<ScoredId> ranking(List<String> ids) {
    List<ScoredId> out = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      out.add(new ScoredId(ids.get(i), ids.size() - i));
    }
    return out;
  }

  static List<List<ScoredId>> randomRankings(Random random, int lists) {
    List<List<ScoredId>> rankings = new ArrayList<>();
    for (int l = 0; l < lists; l++) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        ids.add("d" + random.nextInt(40));
      }
      rankings.add(ranking(new ArrayList<>(new LinkedHashSet<>(ids))));
    }
    return rankings;
  }

  @Test
  void nothingInNothingOutAndKZeroIsEmpty() {
    assertEquals(List.of(), fusion().fuse(List.of(), 10));
    assertEquals(List.of(), fusion().fuse(List.of(List.of(), List.of()), 10));
    assertEquals(List.of(), fusion().fuse(List.of(ranking(List.of("a", "b"))), 0));
  }

  @Test
  void oneRankingAloneKeepsItsOrder() {
    List<String> ids = List.of("c", "a", "e", "b", "d");
    List<ScoredId> fused = fusion().fuse(List.of(ranking(ids)), 3);
    assertEquals(ids.subList(0, 3), fused.stream().map(ScoredId::id).toList());
  }

  @Test
  void anIdFirstEverywhereIsFirst() {
    List<ScoredId> fused = fusion().fuse(List.of(ranking(List.of("x", "a", "b")), ranking(List.of("x", "b", "c")),
        ranking(List.of("x", "c", "a"))), 5);
    assertEquals("x", fused.get(0).id());
  }

  @RepeatedTest(20)
  void everyIdOnceAtMostKFiniteScoresBestFirstTiesById(Random random) {
    List<List<ScoredId>> rankings = randomRankings(random, 1 + random.nextInt(4));
    int k = 1 + random.nextInt(30);
    List<ScoredId> fused = fusion().fuse(rankings, k);
    Set<String> seen = new HashSet<>();
    Set<String> input = new HashSet<>();
    rankings.forEach(r -> r.forEach(s -> input.add(s.id())));
    assertTrue(fused.size() <= k && fused.size() == Math.min(k, input.size()), fused.size() + " of " + input.size());
    for (int i = 0; i < fused.size(); i++) {
      ScoredId s = fused.get(i);
      assertTrue(seen.add(s.id()), "twice: " + s.id());
      assertTrue(input.contains(s.id()), "invented: " + s.id());
      assertTrue(Double.isFinite(s.score()), s.toString());
      if (i > 0) {
        ScoredId prev = fused.get(i - 1);
        assertTrue(prev.score() > s.score() || (prev.score() == s.score() && prev.id().compareTo(s.id()) < 0),
            prev + " before " + s);
      }
    }
    assertEquals(fused, fusion().fuse(rankings, k), "deterministic");
  }

  @RepeatedTest(20)
  void promotingAnIdInOneRankingNeverLowersItsFusedScore(Random random) {
    List<List<ScoredId>> rankings = randomRankings(random, 2 + random.nextInt(2));
    List<ScoredId> list = rankings.get(random.nextInt(rankings.size()));
    if (list.size() < 2) {
      return;
    }
    int i = 1 + random.nextInt(list.size() - 1);
    String promoted = list.get(i).id();
    List<String> ids = new ArrayList<>(list.stream().map(ScoredId::id).toList());
    Collections.swap(ids, i, i - 1);
    List<List<ScoredId>> better = new ArrayList<>(rankings);
    better.set(rankings.indexOf(list), ranking(ids));
    assertTrue(score(fusion().fuse(better, 100), promoted) >= score(fusion().fuse(rankings, 100), promoted) - 1e-12,
        promoted);
  }

  @RepeatedTest(10)
  void aRankingWeightedZeroAddsNothingToTheOthersScores(Random random) {
    List<List<ScoredId>> rankings = randomRankings(random, 3);
    List<ScoredId> withSilent = fusion().fuse(rankings, List.of(1.0, 1.0, 0.0), 100);
    List<ScoredId> without = fusion().fuse(rankings.subList(0, 2), List.of(1.0, 1.0), 100);
    Map<String, Double> silent = new HashMap<>();
    withSilent.forEach(s -> silent.put(s.id(), s.score()));
    for (ScoredId s : without) {
      assertEquals(s.score(), silent.get(s.id()), 1e-12, s.id());
    }
  }

  @RepeatedTest(10)
  void equalWeightsMakeTheOrderOfRankingsIrrelevant(Random random) {
    List<List<ScoredId>> rankings = randomRankings(random, 3);
    List<List<ScoredId>> reversed = new ArrayList<>(rankings);
    Collections.reverse(reversed);
    List<Double> ones = List.of(1.0, 1.0, 1.0);
    assertEquals(ids(fusion().fuse(rankings, ones, 20)), ids(fusion().fuse(reversed, ones, 20)));
  }

  private static List<String> ids(List<ScoredId> fused) {
    return fused.stream().map(ScoredId::id).toList();
  }

  private static double score(List<ScoredId> fused, String id) {
    return fused.stream().filter(s -> s.id().equals(id)).findFirst().map(ScoredId::score).orElse(0.0);
  }
}
