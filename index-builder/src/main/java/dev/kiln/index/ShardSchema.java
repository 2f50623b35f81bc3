package dev.kiln.index;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Field names of a shard's Lucene documents (one Lucene document per chunk). Writers and the searcher
 * both use these constants; changing one is a format change (see {@code docs/FORMATS.md}).
 */
public final class ShardSchema {
  private ShardSchema() {}

  /** Chunk id, {@code docId#ordinal}: keyword, stored. */
  public static final String CHUNK_ID = "chunk_id";
  /** Document id: keyword, stored. */
  public static final String DOC_ID = "doc_id";
  /** Chunk ordinal within its document: stored. */
  public static final String ORDINAL = "ordinal";
  /** Document title: stored (and analysed into {@link #TEXT} for the first chunk only). */
  public static final String TITLE = "title";
  /** Chunk text: analysed for BM25, stored. */
  public static final String TEXT = "text";
  /** Chunk embedding: HNSW graph, dot product over unit vectors. */
  public static final String VECTOR = "vector";
  /** Hash of the chunker fingerprint and the embedding input: keyword, stored. */
  public static final String CONTENT_KEY = "content_key";
  /** {@code zh} for chunks of Chinese documents (their text is analysed with smartcn): keyword, stored. */
  public static final String LANGUAGE = "language";
  /**
   * The owning document's 16-byte {@code DocumentFingerprint}: binary doc values on every chunk, read
   * back by the next incremental build ({@link DocFingerprints}) to find unchanged documents. Absent in
   * shards written before it existed (such a base is rebuilt in full).
   */
  public static final String DOC_FP = "doc_fp";
  /**
   * The URI of the corpus file the chunk's record was read from: sorted doc values on every chunk of a
   * corpus build (absent for changelog records). With {@link #SOURCE_OFFSET} it is the record's
   * position, which the next incremental build needs to keep the documents of a file it does not read
   * ({@link SourcePositions}). Absent in shards written before it existed (their files are read).
   */
  public static final String SOURCE = "src";
  /** The record's offset in its {@link #SOURCE} file (line byte offset, Parquet row): numeric doc values. */
  public static final String SOURCE_OFFSET = "src_offset";
  /** 1 for an indivisible block kept whole over the chunk size: stored. */
  public static final String OVERSIZE = "oversize";
  /** Metadata key of a chunk's heading breadcrumb ({@code meta.breadcrumb}). */
  public static final String BREADCRUMB_KEY = "breadcrumb";
  /** Metadata key of a child chunk's parent id ({@code meta.parent_id}). */
  public static final String PARENT_ID_KEY = "parent_id";
  /** Prefix of metadata fields: keyword, stored, filterable ({@code meta.tenant}, …). */
  public static final String META_PREFIX = "meta.";
  /**
   * Prefix of the point fields of range-indexed metadata keys ({@code index.range-fields}): one
   * dimension, a {@code LongPoint} (long, date: epoch milliseconds) or {@code DoublePoint}, not stored
   * ({@code range.version}, …); the value is also in its {@code meta.} field.
   */
  public static final String RANGE_PREFIX = "range.";

  /**
   * Whether every segment with live chunks in {@code shardDir} has all of {@code fields}: what a build
   * that continues the shard checks before relying on fields added within format version 1.
   */
  public static boolean onEveryLiveSegment(Path shardDir, String... fields) throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir)) {
      return onEveryLiveSegment(dir, fields);
    }
  }

  /** As {@link #onEveryLiveSegment(Path, String...)} for a shard opened as a Lucene directory. */
  public static boolean onEveryLiveSegment(Directory dir, String... fields) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        if (leaf.reader().numDocs() == 0) {
          continue;
        }
        for (String field : fields) {
          if (leaf.reader().getFieldInfos().fieldInfo(field) == null) {
            return false;
          }
        }
      }
      return true;
    }
  }
}
