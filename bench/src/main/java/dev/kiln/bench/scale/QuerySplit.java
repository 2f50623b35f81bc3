package dev.kiln.bench.scale;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * The two disjoint halves of the base dataset's queries the scale benchmark draws its synthetic
 * queries from: {@link #CALIBRATION} for choosing a setting (the automatic search depth: {@link
 * EfSweep}), {@link #REPORT} for the recall it is then reported at (issue 47.6; the protocol's rule 5,
 * docs/results/README.md). A query of one set mixes only base queries of its half, so no base query
 * shapes both. The split is a fixed hash of each base query's position, not of the run's seed: the
 * halves stay the same across runs and sizes, and a seed changes only the mixes.
 */
enum QuerySplit {
  /** The half a setting is chosen on. */
  CALIBRATION(29),
  /** The half a figure is reported on; with a single base query, that query. */
  REPORT(17);

  /** Added to the run's seed for this set's mixes (17: the report queries' stream before the split). */
  final long seedOffset;

  QuerySplit(long seedOffset) {
    this.seedOffset = seedOffset;
  }

  /**
   * Positions of this set's base queries among {@code baseQueries}, ascending: the positions ordered by
   * a hash, the first half (rounded down) calibration, the rest report.
   */
  List<Integer> members(int baseQueries) {
    List<Integer> byHash = IntStream.range(0, baseQueries).boxed()
        .sorted(Comparator.comparingLong((Integer i) -> SyntheticCorpus.mix(0x51EC7L, i)).thenComparing(i -> i))
        .toList();
    int calibration = baseQueries / 2;
    List<Integer> mine = new ArrayList<>(this == CALIBRATION ? byHash.subList(0, calibration)
        : byHash.subList(calibration, baseQueries));
    mine.sort(null);
    if (mine.isEmpty()) {
      throw new IllegalStateException("the " + name().toLowerCase(Locale.ROOT) + " query set needs at"
          + " least 2 base queries to split, the dataset has " + baseQueries);
    }
    return mine;
  }
}
