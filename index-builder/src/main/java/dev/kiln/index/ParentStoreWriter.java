package dev.kiln.index;

import dev.kiln.index.store.BaseOverlayDirectory;
import dev.kiln.index.store.CachedRemoteFile;
import dev.kiln.model.ParentChunk;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * Writes one shard's part of the parents docstore: a Lucene index used only as a compressed,
 * checksummed key-value store (parent id → stored parent), looked up by term. Parents are written
 * once each, however many children point to them.
 *
 * <p>A changelog build continues its base's part instead of copying it ({@link #continuing},
 * {@link #continuingOver}): the writer appends to the base's committed segments, deletes the parents of
 * removed documents (a new {@code .liv} generation of the base segment, not a rewrite of it), adds the
 * fresh parents in new segments, and commits without merging down, so the new part shares every base
 * segment its merge policy leaves alone and a nightly build writes (and uploads) about the change, not
 * the corpus. Lucene's default {@link org.apache.lucene.index.TieredMergePolicy} still merges the small
 * segments nights add, and rewrites a segment once a fifth or more of it is deleted, so neither the
 * segment count nor the dead bytes grow without bound; a segment merged away is no longer shared.
 */
public final class ParentStoreWriter implements Closeable {
  /** Parent id ({@code docId#p<ordinal>}): keyword, stored. */
  public static final String PARENT_ID = "parent_id";
  public static final String DOC_ID = "doc_id";
  public static final String TITLE = "title";
  public static final String BREADCRUMB = "breadcrumb";
  public static final String TEXT = "text";
  public static final String TOKENS = "tokens";
  /** The docstore's format name in the manifest. */
  public static final String FORMAT = "kiln-parents-lucene-v1";

  private final Directory dir;
  private final IndexWriter writer;
  /** Continues a base: appends to its segments and keeps them (no merge down to one segment). */
  private final boolean continued;
  /** The base files the closed part still shares (a base read on demand); empty otherwise. */
  private Set<String> sharedBaseFiles = Set.of();
  private long parents;
  private boolean recount;

  /** A new, empty part; merged down to one segment on {@link #close} (a full build's). */
  public ParentStoreWriter(Path directory) throws IOException {
    this(directory, null, null);
  }

  private ParentStoreWriter(Path directory, Path base, Map<String, CachedRemoteFile> remoteBase) throws IOException {
    WriterDirectories.requireEmpty(directory, "docstore directory");
    Files.createDirectories(directory);
    if (base != null) {
      BaseSegments.link(base, directory);
    }
    this.continued = base != null || remoteBase != null;
    this.dir = remoteBase != null ? new BaseOverlayDirectory(FSDirectory.open(directory), remoteBase)
        : FSDirectory.open(directory);
    IndexWriterConfig iwc = new IndexWriterConfig(new KeywordAnalyzer());
    iwc.setOpenMode(continued ? IndexWriterConfig.OpenMode.APPEND : IndexWriterConfig.OpenMode.CREATE);
    try {
      this.writer = new IndexWriter(dir, iwc);
    } catch (IOException | RuntimeException e) {
      dir.close();
      throw e;
    }
    this.recount = continued;
  }

  /**
   * A part that continues the base part in {@code basePart} (a local root): the base's files are
   * hard-linked into {@code directory} ({@link BaseSegments}; copied where links are impossible) and
   * appended to, never rewritten.
   */
  public static ParentStoreWriter continuing(Path directory, Path basePart) throws IOException {
    return new ParentStoreWriter(directory, basePart, null);
  }

  /**
   * A part that continues a base part living elsewhere (a remote root), read block by block on demand
   * ({@link BaseOverlayDirectory}): {@code directory} receives only what this writer writes, and after
   * {@link #close} {@link #sharedBaseFiles} names the base files the part still uses.
   */
  public static ParentStoreWriter continuingOver(Path directory, Map<String, CachedRemoteFile> base)
      throws IOException {
    return new ParentStoreWriter(directory, null, base);
  }

  /** After {@link #close} of a part continued over a base read on demand: the base files it shares. */
  public Set<String> sharedBaseFiles() {
    return sharedBaseFiles;
  }

  public void add(ParentChunk p) throws IOException {
    Document doc = new Document();
    doc.add(new StringField(PARENT_ID, p.parentId(), Field.Store.YES));
    doc.add(new StringField(DOC_ID, p.docId(), Field.Store.YES));
    doc.add(new StoredField(TITLE, p.title()));
    doc.add(new StoredField(BREADCRUMB, p.breadcrumb()));
    doc.add(new StoredField(TEXT, p.text()));
    doc.add(new StoredField(TOKENS, p.tokens()));
    writer.addDocument(doc);
    parents++;
  }

  /** Removes every parent of {@code docId} added so far; parents added afterwards are kept. */
  public void deleteDocument(String docId) throws IOException {
    writer.deleteDocuments(new Term(DOC_ID, docId));
    recount = true;
  }

  /**
   * A continued part: puts back the base's parents of {@code docId} in place of whatever this writer
   * holds of it (fresh parents of a record that lost to the base's unchanged one, or base parents deleted
   * for them): deletes the id's parents, then copies the base's live ones, read from the base commit this
   * part opened on (the writer commits only on {@link #close}, so that commit is still the latest).
   *
   * @return the parents put back
   */
  public long restoreBase(String docId) throws IOException {
    if (!continued) {
      throw new IllegalStateException("only a part that continues a base has base parents to restore");
    }
    writer.deleteDocuments(new Term(DOC_ID, docId));
    recount = true;
    List<ParentChunk> back = new ArrayList<>();
    Term term = new Term(DOC_ID, docId);
    try (DirectoryReader base = DirectoryReader.open(dir)) {
      for (LeafReaderContext leaf : base.leaves()) {
        PostingsEnum p = leaf.reader().postings(term, PostingsEnum.NONE);
        if (p == null) {
          continue;
        }
        Bits live = leaf.reader().getLiveDocs();
        StoredFields stored = leaf.reader().storedFields();
        for (int d = p.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = p.nextDoc()) {
          if (live == null || live.get(d)) {
            Document doc = stored.document(d);
            back.add(new ParentChunk(doc.get(PARENT_ID), doc.get(DOC_ID), 0, doc.get(TITLE), doc.get(BREADCRUMB),
                doc.get(TEXT), doc.getField(TOKENS).numericValue().intValue()));
          }
        }
      }
    }
    for (ParentChunk p : back) {
      add(p);
    }
    parents -= back.size(); // not written by this build: the live count at close counts them
    return back.size();
  }

  /** Parents in this part: those added, or after {@link #close} of a continued part or one with deletes, all live ones. */
  public long parents() {
    return parents;
  }

  @Override
  public void close() throws IOException {
    try {
      if (!continued) {
        writer.forceMerge(1);
      }
      writer.commit();
    } finally {
      writer.close();
      if (dir instanceof BaseOverlayDirectory overlay) {
        sharedBaseFiles = overlay.baseFiles();
      }
      try {
        if (recount) {
          parents = live(dir);
        }
      } finally {
        dir.close();
      }
    }
  }

  /**
   * Live parents of the committed part, from its commit point alone ({@code segments_N} and each
   * segment's {@code .si}): over a remote base that reads a few small files, not the stored fields.
   */
  private static long live(Directory dir) throws IOException {
    long n = 0;
    for (SegmentCommitInfo si : SegmentInfos.readLatestCommit(dir)) {
      n += si.info.maxDoc() - si.getDelCount() - si.getSoftDelCount();
    }
    return n;
  }
}
