package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * {@code snapshots/<id>/manifest.json}: everything a reader needs to trust and interpret a snapshot.
 * The layout is documented in {@code docs/FORMATS.md}; bump {@link #FORMAT_VERSION} on any
 * incompatible change.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Manifest(
    @JsonProperty("format_version") int formatVersion,
    @JsonProperty("id") String id,
    @JsonProperty("created") String created,
    @JsonProperty("parent") String parent,
    @JsonProperty("model") ModelInfo model,
    @JsonProperty("chunker") ChunkerInfo chunker,
    @JsonProperty("index") IndexInfo index,
    @JsonProperty("counters") Map<String, Long> counters,
    @JsonProperty("shards") List<ShardEntry> shards,
    @JsonProperty("quarantine") QuarantineInfo quarantine,
    @JsonProperty("embeddings") EmbeddingsInfo embeddings) {

  public static final int FORMAT_VERSION = 1;

  /** A manifest with a quarantine summary and no stored-embeddings section. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      QuarantineInfo quarantine) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine, null);
  }

  /** A manifest with stored embeddings and no quarantine summary. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      EmbeddingsInfo embeddings) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, null, embeddings);
  }

  /** A manifest without a quarantine summary or stored embeddings (older snapshots). */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, null, null);
  }

  /**
   * Records the build set aside instead of indexing: how many, and how many for each reason. The
   * records themselves are in the quarantine output named by {@code location}.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record QuarantineInfo(
      @JsonProperty("total") long total,
      @JsonProperty("by_reason") Map<String, Long> byReason,
      @JsonProperty("location") String location) {}

  /** The embedding model the vectors were made with. */
  public record ModelInfo(
      @JsonProperty("name") String name,
      @JsonProperty("dimension") int dimension,
      @JsonProperty("pooling") String pooling,
      @JsonProperty("normalized") boolean normalized,
      @JsonProperty("max_tokens") int maxTokens,
      @JsonProperty("fingerprint") String fingerprint,
      @JsonProperty("location") String location) {

    public ModelInfo(String name, int dimension, String pooling, boolean normalized, int maxTokens) {
      this(name, dimension, pooling, normalized, maxTokens, null, null);
    }

    /** What {@code --model} resolves to: the model directory for a custom model, else the name. */
    public String source() {
      return location != null ? location : name;
    }
  }

  /**
   * The snapshot's stored chunk vectors ({@code embeddings/part-*.parquet}), keyed by content key,
   * made with the model whose fingerprint is {@code model_fingerprint}; the next build reuses them.
   *
   * @param embedded chunks this build ran through the model
   * @param reused chunks whose vectors were copied from {@code reused_from}
   */
  public record EmbeddingsInfo(
      @JsonProperty("directory") String directory,
      @JsonProperty("model_fingerprint") String modelFingerprint,
      @JsonProperty("dimension") int dimension,
      @JsonProperty("embedded") long embedded,
      @JsonProperty("reused") long reused,
      @JsonProperty("reused_from") String reusedFrom,
      @JsonProperty("files") List<FileEntry> files) {}

  /** The chunker settings; {@code tokenizer} names the model whose tokenizer counted the tokens. */
  public record ChunkerInfo(
      @JsonProperty("strategy") String strategy,
      @JsonProperty("size") int size,
      @JsonProperty("overlap") int overlap,
      @JsonProperty("tokenizer") String tokenizer) {}

  /** How the segments were built; the searcher must analyse and score queries the same way. */
  public record IndexInfo(
      @JsonProperty("analyzer") String analyzer,
      @JsonProperty("bm25_k1") float bm25K1,
      @JsonProperty("bm25_b") float bm25B,
      @JsonProperty("vector_similarity") String vectorSimilarity,
      @JsonProperty("hnsw_m") int hnswM,
      @JsonProperty("hnsw_beam_width") int hnswBeamWidth) {}

  /** One shard: a Lucene index directory and the checksums of every file in it. */
  public record ShardEntry(
      @JsonProperty("shard") int shard,
      @JsonProperty("directory") String directory,
      @JsonProperty("chunks") long chunks,
      @JsonProperty("documents") long documents,
      @JsonProperty("files") List<FileEntry> files) {}

  /** A file's name relative to its shard directory, its size in bytes and its SHA-256 (hex). */
  public record FileEntry(
      @JsonProperty("name") String name,
      @JsonProperty("size") long size,
      @JsonProperty("sha256") String sha256) {}

  public long totalChunks() {
    return shards.stream().mapToLong(ShardEntry::chunks).sum();
  }
}
