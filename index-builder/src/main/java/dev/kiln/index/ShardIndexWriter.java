package dev.kiln.index;

import dev.kiln.config.IndexConfig;
import dev.kiln.config.VectorEncoding;
import dev.kiln.index.store.BaseOverlayDirectory;
import dev.kiln.index.store.CachedRemoteFile;
import dev.kiln.model.Chunk;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.EmbeddedChunk;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.CodecReader;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiBits;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SlowCodecReaderWrapper;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;

/**
 * Writes one shard: a Lucene index in which each chunk is one document carrying its BM25 text, its
 * HNSW vector, its ids and its metadata as keyword fields. This is where a vector is written.
 */
public final class ShardIndexWriter implements Closeable {
  private final Path directory;
  private final IndexConfig config;
  private final Directory dir;
  /** A base read on demand from where it lives (a remote root), or null ({@link #continuingOver}). */
  private final Map<String, CachedRemoteFile> remoteBase;
  /** The base's files the closed shard still shares with it (a remote base); empty otherwise. */
  private Set<String> sharedBaseFiles = Set.of();
  private final IndexWriter writer;
  private final int dimension;
  private final Analyzer chinese = Analyzers.forName(Analyzers.CHINESE);
  private final RangeValues ranges;
  private final boolean forceMerge;
  private long chunks;
  /** Live document ids, counted when the shard is closed. */
  private long documents;
  private boolean counted;

  public ShardIndexWriter(Path directory, IndexConfig config, int dimension) throws IOException {
    this(directory, null, config, dimension, true);
  }

  private ShardIndexWriter(Path directory, Path base, IndexConfig config, int dimension, boolean forceMerge)
      throws IOException {
    this(directory, base, null, config, dimension, forceMerge);
  }

  private ShardIndexWriter(Path directory, Path base, Map<String, CachedRemoteFile> remoteBase, IndexConfig config,
      int dimension, boolean forceMerge) throws IOException {
    WriterDirectories.requireEmpty(directory, "shard directory");
    this.directory = directory;
    this.config = config;
    this.dimension = dimension;
    this.forceMerge = forceMerge;
    this.ranges = new RangeValues(config.rangeTypes());
    Files.createDirectories(directory);
    if (base != null) {
      BaseSegments.link(base, directory);
    }
    this.remoteBase = remoteBase;
    this.dir = remoteBase != null ? new BaseOverlayDirectory(FSDirectory.open(directory), remoteBase)
        : FSDirectory.open(directory);
    IndexWriterConfig iwc = new IndexWriterConfig(Analyzers.forName(config.analyzer));
    iwc.setOpenMode(base == null && remoteBase == null ? IndexWriterConfig.OpenMode.CREATE
        : IndexWriterConfig.OpenMode.APPEND);
    iwc.setSimilarity(new BM25Similarity(config.bm25K1, config.bm25B));
    iwc.setRAMBufferSizeMB(config.ramBufferMb);
    iwc.setCodec(codec(config));
    this.writer = new IndexWriter(dir, iwc);
    this.counted = base != null || remoteBase != null;
  }

  /**
   * A shard that continues {@code baseShard} (a changelog or incremental build): the base's committed
   * segments are hard-linked into {@code directory} ({@link BaseSegments}; copied where links are not
   * possible) and the writer appends to them, so untouched chunks keep their segments, HNSW graph and
   * all, without being read or rewritten. Lucene never changes a file it wrote, so the base snapshot's
   * files stay as they were verified.
   *
   * @param forceMerge merge down to {@code index.max-segments} on close, as a full build does (a
   *     changelog build); {@code false} keeps the base's segments and lets Lucene's merge policy merge
   *     what it would (an incremental build: forcing one segment would rebuild every HNSW graph)
   */
  public static ShardIndexWriter continuing(Path directory, Path baseShard, IndexConfig config, int dimension,
      boolean forceMerge) throws IOException {
    return new ShardIndexWriter(directory, baseShard, config, dimension, forceMerge);
  }

  /**
   * A shard that continues a base living elsewhere (a remote root), read on demand: the base's files
   * are never copied here, only the blocks Lucene reads of them are fetched ({@link BaseOverlayDirectory});
   * {@code directory} receives only what this writer writes. After {@link #close}, {@link
   * #sharedBaseFiles} names the base files the shard still uses, and {@link #openFinished} reads it.
   */
  public static ShardIndexWriter continuingOver(Path directory, Map<String, CachedRemoteFile> base,
      IndexConfig config, int dimension, boolean forceMerge) throws IOException {
    return new ShardIndexWriter(directory, null, base, config, dimension, forceMerge);
  }

  /** The base's files the closed shard shares with its base (a base read on demand); empty otherwise. */
  public Set<String> sharedBaseFiles() {
    return sharedBaseFiles;
  }

  /**
   * The closed shard as a Lucene directory: its own directory, or — over a base read on demand — its
   * new files and the base files it shares. The caller closes it.
   */
  public Directory openFinished() throws IOException {
    if (remoteBase == null) {
      return FSDirectory.open(directory);
    }
    Map<String, CachedRemoteFile> shared = new HashMap<>(remoteBase);
    shared.keySet().retainAll(sharedBaseFiles);
    return new BaseOverlayDirectory(FSDirectory.open(directory), shared);
  }

  /**
   * The default codec with Kiln's HNSW parameters and vector encoding; it keeps the default codec's
   * name, and the vectors format is recorded per segment, so any reader opens it.
   */
  public static Lucene104Codec codec(IndexConfig config) {
    KnnVectorsFormat hnsw = VectorFormats.forEncoding(VectorEncoding.parse(config.vectorEncoding),
        config.hnswM, config.hnswBeamWidth);
    return new Lucene104Codec() {
      @Override
      public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return hnsw;
      }
    };
  }

  public void add(EmbeddedChunk embedded) throws IOException {
    Chunk c = embedded.chunk();
    if (embedded.vector().length != dimension) {
      throw new IllegalArgumentException("chunk " + c.chunkId() + " has a " + embedded.vector().length
          + "-d vector; this shard is " + dimension + "-d");
    }
    Document doc = new Document();
    doc.add(new StringField(ShardSchema.CHUNK_ID, c.chunkId(), Field.Store.YES));
    doc.add(new StringField(ShardSchema.DOC_ID, c.docId(), Field.Store.YES));
    doc.add(new StoredField(ShardSchema.ORDINAL, c.ordinal()));
    doc.add(new StoredField(ShardSchema.TITLE, c.title()));
    // The title is searchable text of the document: index it once, with the first chunk, so BM25
    // sees it without counting it again in every chunk. A section's breadcrumb is indexed with each
    // of its chunks: later chunks of a section are about its heading too.
    StringBuilder searchable = new StringBuilder();
    if (c.ordinal() == 0 && !c.title().isEmpty()) {
      searchable.append(c.title()).append('\n');
    }
    if (!c.breadcrumb().isEmpty()) {
      searchable.append(c.breadcrumb()).append('\n');
    }
    searchable.append(c.text());
    if (Languages.CHINESE.equals(c.language())) {
      // Chinese text is segmented into words by smartcn; the shard's analyzer handles the rest.
      doc.add(new TextField(ShardSchema.TEXT, chinese.tokenStream(ShardSchema.TEXT, searchable.toString())));
      doc.add(new StringField(ShardSchema.LANGUAGE, c.language(), Field.Store.YES));
    } else {
      doc.add(new TextField(ShardSchema.TEXT, searchable.toString(), Field.Store.NO));
    }
    doc.add(new StoredField(ShardSchema.TEXT, c.text()));
    doc.add(new KnnFloatVectorField(ShardSchema.VECTOR, embedded.vector(), VectorSimilarityFunction.DOT_PRODUCT));
    for (Map.Entry<String, String> m : c.metadata().entrySet()) {
      doc.add(new StringField(ShardSchema.META_PREFIX + m.getKey(), m.getValue(), Field.Store.YES));
    }
    ranges.addTo(doc, c.metadata());
    if (!c.breadcrumb().isEmpty()) {
      doc.removeFields(ShardSchema.META_PREFIX + ShardSchema.BREADCRUMB_KEY);
      doc.add(new StringField(ShardSchema.META_PREFIX + ShardSchema.BREADCRUMB_KEY, keyword(c.breadcrumb()),
          Field.Store.YES));
    }
    if (c.parentId() != null) {
      doc.removeFields(ShardSchema.META_PREFIX + ShardSchema.PARENT_ID_KEY);
      doc.add(new StringField(ShardSchema.META_PREFIX + ShardSchema.PARENT_ID_KEY, c.parentId(), Field.Store.YES));
    }
    if (!c.contentKey().isEmpty()) {
      doc.add(new StringField(ShardSchema.CONTENT_KEY, c.contentKey(), Field.Store.YES));
    }
    if (c.oversize()) {
      doc.add(new StoredField(ShardSchema.OVERSIZE, 1));
    }
    if (!c.docFingerprint().isEmpty()) {
      doc.add(new BinaryDocValuesField(ShardSchema.DOC_FP, new BytesRef(DocumentFingerprint.bytes(c.docFingerprint()))));
    }
    if (c.source() != null && !c.source().sourceUri().isEmpty()) {
      doc.add(new SortedDocValuesField(ShardSchema.SOURCE, new BytesRef(c.source().sourceUri())));
      doc.add(new NumericDocValuesField(ShardSchema.SOURCE_OFFSET, c.source().offset()));
    }
    writer.addDocument(doc);
    chunks++;
  }

  /**
   * Removes every chunk of {@code docId} added so far (with the base, or by {@link #add}); chunks
   * added afterwards are kept, which is what lets an upsert replace a document in one pass.
   */
  public void deleteDocument(String docId) throws IOException {
    writer.deleteDocuments(new Term(ShardSchema.DOC_ID, docId));
    counted = true;
  }

  /**
   * Copies the live chunks of {@code docIds} back from {@code base}, the shard this one continues,
   * after they were deleted here: an incremental build whose fresh chunks of a document lost to the
   * document's unchanged record. They become a segment of their own (Lucene's {@code addIndexes}, which
   * builds an HNSW graph for them alone); call this after the last delete of those ids. Returns the
   * chunks copied.
   */
  public long restore(DirectoryReader base, Set<String> docIds) throws IOException {
    List<CodecReader> parts = new ArrayList<>();
    long copied = 0;
    for (LeafReaderContext leaf : base.leaves()) {
      FixedBitSet keep = new FixedBitSet(leaf.reader().maxDoc());
      Bits live = leaf.reader().getLiveDocs();
      for (String docId : docIds) {
        PostingsEnum p = leaf.reader().postings(new Term(ShardSchema.DOC_ID, docId), PostingsEnum.NONE);
        if (p == null) {
          continue;
        }
        for (int d = p.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = p.nextDoc()) {
          if (live == null || live.get(d)) {
            keep.set(d);
          }
        }
      }
      int n = keep.cardinality();
      if (n > 0) {
        parts.add(new OnlyDocs(SlowCodecReaderWrapper.wrap(leaf.reader()), keep, n));
        copied += n;
      }
    }
    addCopies(parts);
    return copied;
  }

  /**
   * Copies the live documents of {@code parts} (views of the base's segments: {@link #restore}, {@link
   * RelocatedChunks}) into this shard as a segment of their own, its HNSW graph built for them alone;
   * call it after the last delete of the documents they replace.
   */
  public void addCopies(List<? extends CodecReader> parts) throws IOException {
    if (!parts.isEmpty()) {
      writer.addIndexes(parts.toArray(new CodecReader[0]));
      counted = true;
    }
  }

  /** Keyword fields hold at most 32766 UTF-8 bytes; a breadcrumb is cut well before that. */
  private static String keyword(String value) {
    return value.length() <= 4096 ? value : value.substring(0, 4096);
  }

  /** Values of range-indexed metadata keys that did not parse as their type (not indexed as points). */
  public long rangeValuesRejected() {
    return ranges.rejected();
  }

  public long chunks() {
    return chunks;
  }

  /** Documents with a live chunk in the closed shard. */
  public long documents() {
    return documents;
  }

  public Path directory() {
    return directory;
  }

  /**
   * Merges down to the configured segment count (unless a continuing writer was told not to), commits
   * and closes, then counts the shard's live chunks and documents from the committed index: with a
   * base or deletes the writer could not know them otherwise, and a set of every document id it added
   * would cost a string per document — gigabytes on a shard of tens of millions.
   */
  @Override
  public void close() throws IOException {
    try {
      if (forceMerge) {
        if (counted) {
          writer.forceMergeDeletes();
        }
        writer.forceMerge(config.maxSegments);
      }
      writer.commit();
    } finally {
      writer.close();
      if (dir instanceof BaseOverlayDirectory overlay) {
        sharedBaseFiles = overlay.baseFiles();
      }
      try {
        countLive();
      } finally {
        dir.close();
        chinese.close();
      }
    }
  }

  /**
   * Live chunks, and document ids with at least one live chunk over the merged terms of every segment
   * (a document's chunks can span segments when a flush falls between them).
   */
  private void countLive() throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      chunks = reader.numDocs();
      documents = 0;
      Terms terms = MultiTerms.getTerms(reader, ShardSchema.DOC_ID);
      if (terms == null) {
        return;
      }
      Bits live = MultiBits.getLiveDocs(reader);
      TermsEnum te = terms.iterator();
      PostingsEnum postings = null;
      for (BytesRef term = te.next(); term != null; term = te.next()) {
        postings = te.postings(postings, PostingsEnum.NONE);
        for (int d = postings.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = postings.nextDoc()) {
          if (live == null || live.get(d)) {
            documents++;
            break;
          }
        }
      }
    }
  }
}
