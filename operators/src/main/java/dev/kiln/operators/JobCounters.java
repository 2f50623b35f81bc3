package dev.kiln.operators;

import java.util.List;

/**
 * Names of the Flink accumulators the build job's stages report; the client prints them at the end,
 * and each stage's own list below goes to the job's committer in a {@link StageReport}.
 */
public final class JobCounters {
  private JobCounters() {}

  public static final String RECORDS_READ = "records.read";
  public static final String DOCUMENTS = "documents";
  public static final String QUARANTINED = "quarantined";
  public static final String CHUNKS = "chunks";
  public static final String CHUNKS_EMBEDDED = "chunks.embedded";
  /** Chunks whose vector came from an earlier snapshot instead of the model. */
  public static final String CHUNKS_REUSED = "chunks.reused";
  /** Stored-vector parts an embed subtask read for reuse (only those of its content-key partition). */
  public static final String REUSE_PARTS_READ = "reuse.parts.read";
  /** Stored-vector parts offered for reuse and passed over: bytes not matching their SHA-256, another model. */
  public static final String REUSE_PARTS_REFUSED = "reuse.parts.refused";
  /** Chunks not embedded because an identical chunk (same content key) was embedded earlier in this build. */
  public static final String CHUNKS_DEDUPLICATED = "chunks.deduplicated";
  /** Chunks whose record carried a precomputed vector: never sent to the model. */
  public static final String CHUNKS_SUPPLIED = "chunks.supplied";
  /** Embedding models loaded by the embed subtasks (0 when every vector was supplied or reused). */
  public static final String MODEL_LOADS = "model.loads";
  public static final String CHUNKS_TRUNCATED = "chunks.truncated";
  public static final String CHUNKS_WRITTEN = "chunks.written";
  /**
   * Chunks a full build's shard writers dropped or deleted because their record lost to an earlier
   * record with the same document id (embedded, not in the snapshot).
   */
  public static final String CHUNKS_DUPLICATE_ID = "chunks.duplicate_id";
  /** Values of range-indexed metadata keys ({@code index.range-fields}) that did not parse as their type: no point. */
  public static final String RANGE_VALUES_UNPARSED = "range.values.unparsed";
  public static final String SHARDS = "shards";
  /** Followed by a corpus root: records read from that root (for the bad-fraction report). */
  public static final String SOURCE_RECORDS_READ_PREFIX = "records.read@";
  /** Indivisible blocks kept whole over the chunk size (within the hard cap). */
  public static final String CHUNKS_OVERSIZE = "chunks.oversize";
  /** Parents cut (parent-child chunking) and parents written into the docstore. */
  public static final String PARENTS = "parents";
  public static final String PARENTS_WRITTEN = "parents.written";

  /** Changelog builds: ids whose winning op was an upsert / a delete. */
  public static final String CHANGELOG_UPSERTS = "changelog.upserts";
  public static final String CHANGELOG_DELETES = "changelog.deletes";
  /** Changelog deletes of ids the base snapshot did not hold (counted, not an error). */
  public static final String CHANGELOG_DELETE_UNKNOWN = "changelog_delete_unknown";
  /** Changelog ops overridden by a later op on the same id in the same range. */
  public static final String CHANGELOG_SUPERSEDED = "changelog.superseded";
  /** Chunks of the base snapshot removed because their document was deleted or upserted. */
  public static final String CHANGELOG_CHUNKS_REMOVED = "changelog.chunks.removed";
  /** Parents in a changelog build's docstore: the base's kept ones plus the fresh ones. */
  public static final String CHANGELOG_PARENTS = "changelog.parents";

  /** Incremental builds: documents found unchanged at parse (their base chunks are kept, unread). */
  public static final String INCREMENTAL_UNCHANGED = "incremental.unchanged";
  /** Incremental builds: base documents kept by the shard writers (unchanged winners of deduplication). */
  public static final String INCREMENTAL_KEPT = "incremental.kept";
  /**
   * Incremental builds: records of corpus files unchanged since the base (same size and modification
   * time, {@code corpus-files.tsv}) that were not read; the shard writers keep their documents.
   */
  public static final String RECORDS_UNREAD = "records.unread";
  /**
   * Incremental builds: unchanged documents whose record was read from another file than the base
   * records for it (moved between files, or kept from a changelog build), copied with the new position.
   */
  public static final String INCREMENTAL_RELOCATED = "incremental.relocated";
  /** Incremental builds: base documents removed because the corpus no longer holds them. */
  public static final String INCREMENTAL_REMOVED = "incremental.removed";
  /**
   * Shards with a live chunk that lacks a record position in a file of the build's corpus listing
   * (kept from a base written before positions existed, or from a changelog build; every shard with
   * chunks of a build that lists no corpus files): recorded in every manifest, so that a build over a
   * remote root knows, without downloading a shard, whether it may leave unchanged corpus files unread.
   */
  public static final String SHARDS_WITHOUT_POSITIONS = "shards.without-positions";

  /** Builds over a remote base: bytes the shard writers read of the base shards (on demand, block by block). */
  public static final String BASE_BYTES_READ = "base.bytes.read";
  /** Builds into a remote root: bytes of shard files uploaded (shared base files are referenced, not uploaded). */
  public static final String SHARD_BYTES_UPLOADED = "shards.bytes.uploaded";
  /** Changelog builds over a remote base: bytes the docstore writers read of the base's parts (on demand). */
  public static final String PARENTS_BASE_BYTES_READ = "parents.base.bytes.read";
  /** Builds into a remote root continuing a docstore: bytes of docstore files uploaded (shared ones are referenced). */
  public static final String PARENTS_BYTES_UPLOADED = "parents.bytes.uploaded";

  public static final String TIME_PARSE = "time.parse.ns";
  public static final String TIME_CHUNK = "time.chunk.ns";
  public static final String TIME_EMBED = "time.embed.ns";
  public static final String TIME_WRITE = "time.write.ns";

  /** What each stage owns and reports to the committer (no name twice within one chain of operators). */
  public static final List<String> PARSE_STAGE = List.of(RECORDS_READ, DOCUMENTS, QUARANTINED, INCREMENTAL_UNCHANGED,
      TIME_PARSE);
  public static final List<String> CHUNK_STAGE = List.of(CHUNKS, CHUNKS_OVERSIZE, PARENTS, TIME_CHUNK,
      CHUNKS_SUPPLIED); // supplied chunks that bypass the embed stage are counted here
  public static final List<String> EMBED_STAGE = List.of(CHUNKS_EMBEDDED, CHUNKS_REUSED, CHUNKS_SUPPLIED,
      CHUNKS_DEDUPLICATED, CHUNKS_TRUNCATED, MODEL_LOADS, TIME_EMBED, REUSE_PARTS_READ, REUSE_PARTS_REFUSED);
  public static final List<String> WRITE_STAGE = List.of(CHUNKS_WRITTEN, TIME_WRITE, CHANGELOG_CHUNKS_REMOVED,
      CHANGELOG_DELETE_UNKNOWN, RANGE_VALUES_UNPARSED, INCREMENTAL_KEPT, INCREMENTAL_REMOVED, RECORDS_UNREAD,
      SHARDS_WITHOUT_POSITIONS, INCREMENTAL_RELOCATED, BASE_BYTES_READ, SHARD_BYTES_UPLOADED,
      // a full build's writers resolve duplicate ids (WriterDuplicates): they correct these
      CHUNKS, CHUNKS_DUPLICATE_ID, DOCUMENTS, QUARANTINED);
  public static final List<String> PARENTS_STAGE = List.of(PARENTS_WRITTEN, CHANGELOG_PARENTS, PARENTS,
      PARENTS_BASE_BYTES_READ, PARENTS_BYTES_UPLOADED);
  public static final List<String> CHANGELOG_PARSE_STAGE = List.of(RECORDS_READ, QUARANTINED, TIME_PARSE);
  public static final List<String> CHANGELOG_RESOLVE_STAGE = List.of(DOCUMENTS, CHANGELOG_UPSERTS, CHANGELOG_DELETES,
      CHANGELOG_SUPERSEDED);
}
