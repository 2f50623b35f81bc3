package dev.kiln.search;

import dev.kiln.search.fusion.ReciprocalRankFusion;
import dev.kiln.search.fusion.ScoredId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.util.IOUtils;

/**
 * Any number of retrieval paths — snapshots roots, typically — searched as one: each path answers
 * the request with its own chain (its model, analyzer, filter, hybrid), the lists are merged (a
 * weight per path), and every hit is labelled with the path it came from. Roots may be embedded with
 * different models: the query is embedded once per model, not once per root. The relevance gate
 * applies to the merged list on the calibrated score each root computed ({@link SearchHit#relevance()}).
 *
 * <p>How lists are merged ({@link Merge}): {@code CALIBRATED} (default) keeps each root's own order and
 * puts roots on one scale by how relevant their best hit is — a hit's score is the path's weight ×
 * its root's best calibrated score × its min-max normalised score within its root — so that a root
 * with nothing relevant does not place its best junk beside another root's answer, as any per-list
 * normalisation (min-max blend, RRF) does: every list's top scores alike there. Calibrated scores
 * of roots with different models are on different scales (each model's cosine); weights correct for
 * that. {@code RRF} is weighted reciprocal rank fusion, blind to scores.
 *
 * <p>Chunk ids are only unique within a root, so merging joins on (root, chunk id): the same document
 * held by two roots is two candidates. The response's snapshot field names each path's snapshot:
 * {@code label=snapshot,...}. Thread-safe; closing it closes every path.
 */
public final class FederatedSearcher implements RetrievalPath {
  /** How the paths' lists become one. */
  public enum Merge { CALIBRATED, RRF }

  /** Candidates asked of each path before fusion, when k is smaller. */
  static final int MIN_PATH_DEPTH = 50;

  /**
   * One path, the label its hits carry (a root's URI, say) and its weight in the fusion.
   */
  public record WeightedPath(String label, RetrievalPath path, double weight) {
    public WeightedPath {
      Objects.requireNonNull(label, "label");
      Objects.requireNonNull(path, "path");
    }
  }

  private final List<WeightedPath> paths;
  private final Merge merge;
  private final ReciprocalRankFusion rrf;
  private final RelevanceGate gate;

  /** @param rrfK the RRF constant, used when {@code merge} is {@link Merge#RRF} */
  public FederatedSearcher(List<WeightedPath> paths, Merge merge, int rrfK, RelevanceGate gate) {
    if (paths.isEmpty()) {
      throw new IllegalArgumentException("a federated search needs at least one path");
    }
    Map<String, Integer> labels = new HashMap<>();
    for (WeightedPath p : paths) {
      if (labels.merge(p.label(), 1, Integer::sum) > 1) {
        throw new IllegalArgumentException("two paths are labelled " + p.label() + ": labels must differ");
      }
    }
    for (WeightedPath p : paths) {
      if (!(p.weight() >= 0) || Double.isInfinite(p.weight())) {
        throw new IllegalArgumentException("path " + p.label() + ": weight must be finite and >= 0, was " + p.weight());
      }
    }
    this.paths = List.copyOf(paths);
    this.merge = Objects.requireNonNull(merge, "merge");
    this.rrf = new ReciprocalRankFusion(rrfK);
    this.gate = Objects.requireNonNull(gate, "gate");
  }

  public List<WeightedPath> paths() {
    return paths;
  }

  /** The paths' labels, comma-separated. */
  @Override
  public String label() {
    return String.join(",", paths.stream().map(WeightedPath::label).toList());
  }

  /** One path's answer to a federated search, at {@link #depth}, each hit with its calibrated score. */
  public record PathAnswer(String label, double weight, SearchResponse response) {}

  /** Candidates each path is asked for a federated top {@code k}. */
  public static int depth(int k) {
    return Math.min(SearchRequest.MAX_K, Math.max(k, MIN_PATH_DEPTH));
  }

  @Override
  public SearchResponse search(SearchRequest request) {
    SearchRequest perPath = new SearchRequest(request.query(), request.mode(), depth(request.k()), request.filter(),
        request.options());
    Map<String, float[]> vectors = new HashMap<>(); // model fingerprint -> the query's vector under it
    List<PathAnswer> answers = new ArrayList<>(paths.size());
    for (WeightedPath wp : paths) {
      RetrievalPath path = wp.path();
      SearchResponse response;
      if (path instanceof Searcher s) {
        float[] v = vectors.computeIfAbsent(s.modelFingerprint(), f -> s.embedQuery(request.query()));
        response = s.searchCalibrated(perPath, v);
      } else {
        response = path.search(perPath);
      }
      answers.add(new PathAnswer(wp.label(), wp.weight(), response));
    }
    return merge(answers, merge, rrf, request.k(), request.mode(), gate);
  }

  /**
   * The paths' answers as one: merged as {@code merge} says, cut to {@code k}, gated, each hit
   * labelled with its path. A router federating roots ({@code kiln route --root}) merges its roots'
   * routed answers with this very method, so that its answer is the single server's.
   */
  public static SearchResponse merge(List<PathAnswer> answers, Merge merge, ReciprocalRankFusion rrf, int k,
      SearchMode mode, RelevanceGate gate) {
    List<List<ScoredId>> rankings = new ArrayList<>(answers.size());
    List<Double> weights = new ArrayList<>(answers.size());
    Map<String, SearchHit> byKey = new LinkedHashMap<>();
    List<String> snapshots = new ArrayList<>(answers.size());
    for (PathAnswer a : answers) {
      SearchResponse response = a.response();
      snapshots.add(a.label() + "=" + response.snapshotId());
      List<ScoredId> ranking = new ArrayList<>(response.results().size());
      for (SearchHit h : response.results()) {
        String key = a.label() + '\u0000' + h.chunkId();
        byKey.putIfAbsent(key, h.root() == null ? h.withRoot(a.label()) : h);
        ranking.add(new ScoredId(key, h.score()));
      }
      rankings.add(merge == Merge.CALIBRATED ? calibrated(ranking, response.results(), a.weight()) : ranking);
      weights.add(a.weight());
    }
    List<ScoredId> merged = merge == Merge.RRF ? rrf.fuse(rankings, weights, k) : byScore(rankings, k);
    List<SearchHit> hits = new ArrayList<>();
    for (ScoredId f : merged) {
      hits.add(byKey.get(f.id()).withScore(f.score()));
    }
    return new SearchResponse(String.join(",", snapshots), mode, gate.apply(hits));
  }

  /** weight × the root's best calibrated score × the min-max normalised score within the root. */
  private static List<ScoredId> calibrated(List<ScoredId> ranking, List<SearchHit> hits, double weight) {
    if (ranking.isEmpty()) {
      return ranking;
    }
    double top = Double.NEGATIVE_INFINITY;
    for (SearchHit h : hits) {
      top = Math.max(top, h.relevance() != null ? h.relevance() : 1.0);
    }
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (ScoredId s : ranking) {
      min = Math.min(min, s.score());
      max = Math.max(max, s.score());
    }
    double range = max - min;
    List<ScoredId> out = new ArrayList<>(ranking.size());
    for (ScoredId s : ranking) {
      out.add(new ScoredId(s.id(), weight * top * (range > 0 ? (s.score() - min) / range : 1.0)));
    }
    return out;
  }

  /** Every path's items by their (already comparable) scores, best first, ties by id. */
  private static List<ScoredId> byScore(List<List<ScoredId>> rankings, int k) {
    List<ScoredId> all = new ArrayList<>();
    rankings.forEach(all::addAll);
    all.sort(Comparator.comparingDouble(ScoredId::score).reversed().thenComparing(ScoredId::id));
    return all.size() > k ? List.copyOf(all.subList(0, k)) : all;
  }

  @Override
  public void close() throws IOException {
    IOUtils.close(paths.stream().map(WeightedPath::path).toList());
  }
}
