package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.snapshot.Verification;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.util.IOUtils;

/**
 * Opens what {@code --snapshots} names for {@code search} and {@code eval}: one root as a
 * {@link Searcher}, several as a {@link FederatedSearcher} (merged on calibrated scores, or by RRF with
 * {@code --fusion rrf}; one {@code --snapshots-weight} per root; hits labelled with their root).
 */
final class SearchPaths {
  static final String DEFAULT_ROOT = "kiln-data/snapshots";

  private SearchPaths() {}

  /** The roots given, or the default one. */
  static List<String> roots(List<String> snapshots) {
    return snapshots == null || snapshots.isEmpty() ? List.of(DEFAULT_ROOT) : snapshots;
  }

  static RetrievalPath open(List<String> snapshots, List<Double> weights, String snapshot, SearchOptions options,
      Verification verify, FileSystemOptions fs) throws IOException {
    return open(snapshots, weights, snapshot, options, verify, fs, false);
  }

  /**
   * As above; {@code preloadQueryModel}: each snapshot's query model starts loading as soon as its
   * manifest is read, alongside the shards' open (a search that will embed its query).
   */
  static RetrievalPath open(List<String> snapshots, List<Double> weights, String snapshot, SearchOptions options,
      Verification verify, FileSystemOptions fs, boolean preloadQueryModel) throws IOException {
    List<String> roots = roots(snapshots);
    if (roots.size() == 1) {
      if (weights != null && !weights.isEmpty()) {
        throw new ConfigException("--snapshots-weight weighs several --snapshots roots; one root was given");
      }
      return Searcher.builder().root(SnapshotRoots.local(roots.get(0), snapshot, fs)).snapshot(snapshot)
          .options(options).verify(verify).preloadQueryModel(preloadQueryModel).build();
    }
    if (snapshot != null) {
      throw new ConfigException("--snapshot " + snapshot + " names one snapshot: use it with a single --snapshots root");
    }
    if (weights != null && !weights.isEmpty() && weights.size() != roots.size()) {
      throw new ConfigException("--snapshots-weight: " + weights.size() + " weight(s) for " + roots.size()
          + " --snapshots roots; give one per root, in the same order");
    }
    if (roots.stream().distinct().count() != roots.size()) {
      throw new ConfigException("--snapshots names the same root twice: " + roots);
    }
    List<FederatedSearcher.WeightedPath> paths = new ArrayList<>();
    try {
      for (int i = 0; i < roots.size(); i++) {
        double w = weights == null || weights.isEmpty() ? 1.0 : weights.get(i);
        if (!(w >= 0) || Double.isInfinite(w)) {
          throw new ConfigException("--snapshots-weight must be finite and >= 0, was " + w);
        }
        paths.add(new FederatedSearcher.WeightedPath(roots.get(i),
            Searcher.builder().root(SnapshotRoots.local(roots.get(i), null, fs)).options(options)
                .verify(verify).preloadQueryModel(preloadQueryModel).build(), w));
      }
    } catch (IOException | RuntimeException e) {
      IOUtils.closeWhileHandlingException(paths.stream().map(FederatedSearcher.WeightedPath::path).toList());
      throw e;
    }
    FederatedSearcher.Merge merge = options.fusion() == FusionMethod.RRF ? FederatedSearcher.Merge.RRF
        : FederatedSearcher.Merge.CALIBRATED;
    return new FederatedSearcher(paths, merge, options.rrfK(), new RelevanceGate(options.minScore(), options.maxDrop()));
  }

  /** Every snapshot searcher behind a path (one, or each federated root's). */
  static List<Searcher> searchers(RetrievalPath path) {
    if (path instanceof Searcher s) {
      return List.of(s);
    }
    return ((FederatedSearcher) path).paths().stream().map(p -> (Searcher) p.path()).toList();
  }
}
