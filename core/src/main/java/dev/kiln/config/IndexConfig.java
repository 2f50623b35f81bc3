package dev.kiln.config;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Per-shard Lucene segment settings. The searcher reads these back from the manifest. */
public class IndexConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** HNSW graph degree. */
  public int hnswM = 16;
  /** HNSW candidate list size while building. */
  public int hnswBeamWidth = 100;
  /** How vectors are stored for the graph walk: float32, int8, int4 or binary ({@link VectorEncoding}). */
  public String vectorEncoding = VectorEncoding.FLOAT32.label();
  /** Text analysis for BM25: {@code english} (Porter stemming, stop words) or {@code standard}. */
  public String analyzer = "english";
  /** BM25 k1; 0.9 / 0.4 are the passage-friendly values Anserini uses for BEIR. */
  public float bm25K1 = 0.9f;
  /** BM25 b. */
  public float bm25B = 0.4f;
  /** Segments per shard after the final merge. */
  public int maxSegments = 1;
  /** Writer RAM buffer per shard, in MiB. */
  public int ramBufferMb = 64;
  /** Recall probe before publishing: held-out queries per shard (mixes of two sampled chunk vectors; 0 = off). */
  public int recallProbeSamples = 0;
  /** Recall probe depth: recall@k of HNSW against an exact scan. */
  public int recallProbeK = 10;
  /** The mean recall@k every shard must reach, or the snapshot is not published. */
  public float recallFloor = 0.9f;
  /**
   * Metadata keys also indexed as Lucene points for range filters ({@code version>=3},
   * {@code modified>=2026-01-01}), each with its {@link RangeType}: {@code long}, {@code double} or
   * {@code date}. Values that do not parse as the type stay exact-match filterable only (counted).
   * Every metadata key is exact-match filterable whether listed here or not.
   */
  public Map<String, String> rangeFields = new LinkedHashMap<>();

  /** What a metadata key may look like in a filter (and so in {@code index.range-fields}). */
  public static final String METADATA_KEY = "[A-Za-z0-9_.\\-]+";

  /** The range fields with their types, in key order, as the manifest records them. */
  public SortedMap<String, RangeType> rangeTypes() {
    SortedMap<String, RangeType> out = new TreeMap<>();
    rangeFields.forEach((k, v) -> out.put(k, RangeType.parse(k, v)));
    return out;
  }

  void validate() {
    if (hnswM < 2 || hnswM > 512) {
      throw new ConfigException("index.hnsw-m must be in 2..512, was " + hnswM);
    }
    // Lucene's HNSW graph builder fails on a beam of 1 when it merges a graph (NeighborQueue of size 0).
    if (hnswBeamWidth < 2 || hnswBeamWidth > 3200) {
      throw new ConfigException("index.hnsw-beam-width must be in 2..3200, was " + hnswBeamWidth);
    }
    VectorEncoding.parse(vectorEncoding);
    if (!"english".equals(analyzer) && !"standard".equals(analyzer)) {
      throw new ConfigException("index.analyzer must be 'english' or 'standard', was '" + analyzer + "'");
    }
    if (bm25K1 < 0 || bm25B < 0 || bm25B > 1) {
      throw new ConfigException("index.bm25-k1 must be >= 0 and index.bm25-b in 0..1");
    }
    if (maxSegments < 1) {
      throw new ConfigException("index.max-segments must be >= 1, was " + maxSegments);
    }
    if (recallProbeSamples < 0 || recallProbeK < 1) {
      throw new ConfigException("index.recall-probe-samples must be >= 0 and index.recall-probe-k >= 1");
    }
    if (recallFloor < 0 || recallFloor > 1) {
      throw new ConfigException("index.recall-floor must be in 0..1, was " + recallFloor);
    }
    if (rangeFields == null) {
      throw new ConfigException("index.range-fields must be a map of metadata key to type, e.g. {version: long}");
    }
    rangeFields.forEach((key, type) -> {
      if (key == null || !key.matches(METADATA_KEY)) {
        throw new ConfigException("index.range-fields: key '" + key + "' must be letters, digits, '_', '-' or '.'");
      }
      RangeType.parse(key, type);
    });
    if (ramBufferMb < 1) {
      throw new ConfigException("index.ram-buffer-mb must be >= 1, was " + ramBufferMb);
    }
  }
}
