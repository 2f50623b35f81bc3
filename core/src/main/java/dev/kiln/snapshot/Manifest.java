package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.config.RangeType;
import dev.kiln.config.VectorEncoding;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

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
    @JsonProperty("embeddings") EmbeddingsInfo embeddings,
    @JsonProperty("docstore") DocstoreEntry docstore,
    @JsonProperty("changelog") ChangelogInfo changelog,
    // Added within v1: written only when some key is range-indexed; readers before it ignore it.
    @JsonProperty("range_fields") @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> rangeFields,
    // Added within v1: corpus builds only; readers before it ignore it.
    @JsonProperty("corpus_files") CorpusFilesEntry corpusFiles) {

  /**
   * Version 2 added {@link FileEntry#snapshot}: a snapshot references files an earlier snapshot of the
   * same root wrote instead of copying them. Version 1 manifests (no such field) are still read.
   */
  public static final int FORMAT_VERSION = 2;

  /** The first version whose file entries may reference another snapshot's file. */
  public static final int FIRST_WITH_REFERENCES = 2;

  /** A manifest without a corpus files listing. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      QuarantineInfo quarantine, EmbeddingsInfo embeddings, DocstoreEntry docstore, ChangelogInfo changelog,
      Map<String, String> rangeFields) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine,
        embeddings, docstore, changelog, rangeFields, null);
  }

  /** A manifest without range-indexed metadata keys. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      QuarantineInfo quarantine, EmbeddingsInfo embeddings, DocstoreEntry docstore, ChangelogInfo changelog) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine,
        embeddings, docstore, changelog, null);
  }

  /** A manifest of a corpus build (no changelog section). */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      QuarantineInfo quarantine, EmbeddingsInfo embeddings, DocstoreEntry docstore) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine,
        embeddings, docstore, null);
  }

  /** This manifest with a changelog section. */
  public Manifest withChangelog(ChangelogInfo info) {
    return new Manifest(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine,
        embeddings, docstore, info, rangeFields, corpusFiles);
  }

  /**
   * This manifest with its range-indexed metadata keys ({@code index.range-fields}): key → type
   * ({@link RangeType#label()}); empty or null for none.
   */
  public Manifest withRangeFields(Map<String, String> fields) {
    return new Manifest(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine,
        embeddings, docstore, changelog, fields == null || fields.isEmpty() ? null : new TreeMap<>(fields),
        corpusFiles);
  }

  /** This manifest with its corpus files listing ({@link SnapshotLayout#CORPUS_FILES}); null for none. */
  public Manifest withCorpusFiles(CorpusFilesEntry entry) {
    return new Manifest(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine,
        embeddings, docstore, changelog, rangeFields, entry);
  }

  /**
   * The metadata keys indexed as points for range filters, with their types; empty for snapshots
   * built without any (or before the key existed). A type this reader does not know is left out, so
   * a range filter on that key is refused rather than misread.
   */
  public SortedMap<String, RangeType> rangeTypes() {
    SortedMap<String, RangeType> out = new TreeMap<>();
    if (rangeFields != null) {
      rangeFields.forEach((k, v) -> {
        for (RangeType t : RangeType.values()) {
          if (t.label().equals(v)) {
            out.put(k, t);
          }
        }
      });
    }
    return out;
  }

  /**
   * A changelog build: the snapshot is {@code base} plus the records of {@code topic} up to
   * {@code offsets} (per partition, the next offset to read), which is where the next changelog build
   * starts. {@code upserts}/{@code deletes} count the ids whose winning op was of that kind;
   * {@code unknown_deletes} the deletes of ids the base did not hold.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ChangelogInfo(
      @JsonProperty("topic") String topic,
      @JsonProperty("offsets") Map<String, Long> offsets,
      @JsonProperty("start_offsets") Map<String, Long> startOffsets,
      @JsonProperty("base") String base,
      @JsonProperty("upserts") long upserts,
      @JsonProperty("deletes") long deletes,
      @JsonProperty("unknown_deletes") long unknownDeletes) {}

  /** A manifest with a quarantine summary and stored embeddings, without a docstore. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      QuarantineInfo quarantine, EmbeddingsInfo embeddings) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine,
        embeddings, null);
  }

  /** A manifest with a quarantine summary and no stored-embeddings section. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      QuarantineInfo quarantine) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, quarantine, null,
        null);
  }

  /** A manifest with stored embeddings and no quarantine summary. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      EmbeddingsInfo embeddings) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, null, embeddings,
        null);
  }

  /** A snapshot with a parents docstore and neither a quarantine summary nor stored embeddings. */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards,
      DocstoreEntry docstore) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, null, null,
        docstore);
  }

  /** A manifest without a quarantine summary, stored embeddings or docstore (older snapshots). */
  public Manifest(int formatVersion, String id, String created, String parent, ModelInfo model,
      ChunkerInfo chunker, IndexInfo index, Map<String, Long> counters, List<ShardEntry> shards) {
    this(formatVersion, id, created, parent, model, chunker, index, counters, shards, null, null, null);
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

  /**
   * The corpus files a corpus build saw ({@link CorpusFiles}), in the top-level file {@code file}
   * (always {@link SnapshotLayout#CORPUS_FILES}), verified like the shard files.
   *
   * @param files rows of the listing
   * @param kept rows of files unchanged since the base (not read, their documents kept from it)
   * @param bytes the listed files' sizes, summed
   * @param size the listing's own size in bytes
   * @param sha256 the listing's own SHA-256 (hex)
   */
  public record CorpusFilesEntry(
      @JsonProperty("file") String file,
      @JsonProperty("files") long files,
      @JsonProperty("kept") long kept,
      @JsonProperty("bytes") long bytes,
      @JsonProperty("size") long size,
      @JsonProperty("sha256") String sha256) {}

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
   * @param supplied chunks whose record carried a precomputed vector (0 in older manifests)
   */
  public record EmbeddingsInfo(
      @JsonProperty("directory") String directory,
      @JsonProperty("model_fingerprint") String modelFingerprint,
      @JsonProperty("dimension") int dimension,
      @JsonProperty("embedded") long embedded,
      @JsonProperty("reused") long reused,
      @JsonProperty("reused_from") String reusedFrom,
      @JsonProperty("files") List<FileEntry> files,
      @JsonProperty("supplied") long supplied,
      // Written only when non-zero: readers before it refuse unknown keys here.
      @JsonProperty("deduplicated") @JsonInclude(JsonInclude.Include.NON_DEFAULT) long deduplicated,
      // Unpublished builds whose closed parts were offered for reuse (resume); written only when any were.
      @JsonProperty("resumed_from") @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> resumedFrom,
      // Format 2, written only when true: the files (own and referenced) hold every chunk's vector although
      // the build was partial, so the next build needs no walk back through earlier snapshots.
      @JsonProperty("complete") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean complete) {

    /** Stored vectors as the job's commit writes them before format 2's references. */
    public EmbeddingsInfo(String directory, String modelFingerprint, int dimension, long embedded, long reused,
        String reusedFrom, List<FileEntry> files, long supplied, long deduplicated, List<String> resumedFrom) {
      this(directory, modelFingerprint, dimension, embedded, reused, reusedFrom, files, supplied, deduplicated,
          resumedFrom, false);
    }

    /** Stored vectors of a build that was given none precomputed. */
    public EmbeddingsInfo(String directory, String modelFingerprint, int dimension, long embedded, long reused,
        String reusedFrom, List<FileEntry> files) {
      this(directory, modelFingerprint, dimension, embedded, reused, reusedFrom, files, 0, 0, List.of(), false);
    }

    /** Stored vectors of a build with no identical chunks. */
    public EmbeddingsInfo(String directory, String modelFingerprint, int dimension, long embedded, long reused,
        String reusedFrom, List<FileEntry> files, long supplied) {
      this(directory, modelFingerprint, dimension, embedded, reused, reusedFrom, files, supplied, 0, List.of(), false);
    }
  }

  /**
   * The chunker settings; {@code tokenizer} names the model whose tokenizer counted the tokens.
   * {@code fingerprint} hashes every setting that changes chunks; it is part of every chunk's content
   * key. {@code strategies} maps each content type to the strategy that cut it.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ChunkerInfo(
      @JsonProperty("strategy") String strategy,
      @JsonProperty("size") int size,
      @JsonProperty("overlap") int overlap,
      @JsonProperty("tokenizer") String tokenizer,
      @JsonProperty("fingerprint") String fingerprint,
      @JsonProperty("strategies") Map<String, String> strategies,
      @JsonProperty("hard_cap") Integer hardCap,
      @JsonProperty("breadcrumb_prefix") Boolean breadcrumbPrefix,
      @JsonProperty("parent_size") Integer parentSize) {

    public ChunkerInfo(String strategy, int size, int overlap, String tokenizer) {
      this(strategy, size, overlap, tokenizer, null, null, null, null, null);
    }
  }

  /**
   * The parents docstore of a parent-child snapshot: a directory of the snapshot holding one Lucene
   * stored-fields index per shard; {@code files} are relative to {@code directory}.
   */
  public record DocstoreEntry(
      @JsonProperty("directory") String directory,
      @JsonProperty("format") String format,
      @JsonProperty("parents") long parents,
      @JsonProperty("files") List<FileEntry> files) {}

  /**
   * How the segments were built; the searcher must analyse and score queries the same way.
   * {@code chinese_analyzer} ({@code smartcn}) is set when Chinese documents were analysed with it:
   * Chinese queries are then analysed with it too. {@code vector_encoding} names how the graph's
   * vectors are stored ({@link VectorEncoding}); it is written only for quantised encodings, so
   * that readers predating it, which refuse unknown keys here, still open float32 snapshots.
   */
  public record IndexInfo(
      @JsonProperty("analyzer") String analyzer,
      @JsonProperty("bm25_k1") float bm25K1,
      @JsonProperty("bm25_b") float bm25B,
      @JsonProperty("vector_similarity") String vectorSimilarity,
      @JsonProperty("hnsw_m") int hnswM,
      @JsonProperty("hnsw_beam_width") int hnswBeamWidth,
      @JsonProperty("chinese_analyzer") String chineseAnalyzer,
      @JsonProperty("vector_encoding") @JsonInclude(JsonInclude.Include.NON_NULL) String vectorEncoding) {

    public IndexInfo(String analyzer, float bm25K1, float bm25B, String vectorSimilarity, int hnswM,
        int hnswBeamWidth) {
      this(analyzer, bm25K1, bm25B, vectorSimilarity, hnswM, hnswBeamWidth, null);
    }

    public IndexInfo(String analyzer, float bm25K1, float bm25B, String vectorSimilarity, int hnswM,
        int hnswBeamWidth, String chineseAnalyzer) {
      this(analyzer, bm25K1, bm25B, vectorSimilarity, hnswM, hnswBeamWidth, chineseAnalyzer, null);
    }

    /** The stored vectors' encoding; manifests written before it was recorded hold float32. */
    public VectorEncoding encoding() {
      return VectorEncoding.parse(vectorEncoding);
    }
  }

  /** One shard: a Lucene index directory and the checksums of every file in it. */
  public record ShardEntry(
      @JsonProperty("shard") int shard,
      @JsonProperty("directory") String directory,
      @JsonProperty("chunks") long chunks,
      @JsonProperty("documents") long documents,
      @JsonProperty("files") List<FileEntry> files) {
    /** The files a searcher reads: all but the fingerprint file ({@link SnapshotLayout#SHARD_FINGERPRINTS}). */
    public List<FileEntry> servingFiles() {
      return files.stream().filter(f -> !f.name().equals(SnapshotLayout.SHARD_FINGERPRINTS)).toList();
    }
  }

  /**
   * A file's name relative to its directory (a shard, the docstore, the stored vectors), its size in
   * bytes and its SHA-256 (hex), and — format version 2 — {@code snapshot}: the id of the earlier
   * snapshot of the same root that wrote the file, when this snapshot references it instead of holding
   * a copy (absent: the file is this snapshot's own). A referenced file keeps its name and directory:
   * it lives at {@code snapshots/<snapshot>/<directory>/<name>} ({@link SnapshotLayout#fileKey}).
   */
  public record FileEntry(
      @JsonProperty("name") String name,
      @JsonProperty("size") long size,
      @JsonProperty("sha256") String sha256,
      @JsonProperty("snapshot") @JsonInclude(JsonInclude.Include.NON_NULL) String snapshot) implements Serializable {
    private static final long serialVersionUID = 2L;

    /** A file of the snapshot's own. */
    public FileEntry(String name, long size, String sha256) {
      this(name, size, sha256, null);
    }

    /** The snapshot that holds the bytes: {@link #snapshot} when referenced, else {@code self}. */
    public String owner(String self) {
      return snapshot != null ? snapshot : self;
    }

    /** Whether the snapshot this entry belongs to ({@code self}) references the file rather than holding it. */
    public boolean referenced(String self) {
      return snapshot != null && !snapshot.equals(self);
    }

    /**
     * This file as a later snapshot lists it when it shares the file with {@code self}, the snapshot
     * whose manifest holds this entry: a reference to the file's owner, never a chain of references.
     */
    public FileEntry sharedFrom(String self) {
      return new FileEntry(name, size, sha256, owner(self));
    }

    /** The same file named {@code other} (relative to another directory), keeping its owner. */
    public FileEntry renamed(String other) {
      return new FileEntry(other, size, sha256, snapshot);
    }
  }

  public long totalChunks() {
    return shards.stream().mapToLong(ShardEntry::chunks).sum();
  }
}
