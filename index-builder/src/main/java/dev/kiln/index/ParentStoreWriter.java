package dev.kiln.index;

import dev.kiln.model.ParentChunk;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;

/**
 * Writes one shard's part of the parents docstore: a Lucene index used only as a compressed,
 * checksummed key-value store (parent id → stored parent), looked up by term. Parents are written
 * once each, however many children point to them.
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

  private final FSDirectory dir;
  private final IndexWriter writer;
  private long parents;
  private boolean recount;

  public ParentStoreWriter(Path directory) throws IOException {
    WriterDirectories.requireEmpty(directory, "docstore directory");
    Files.createDirectories(directory);
    this.dir = FSDirectory.open(directory);
    IndexWriterConfig iwc = new IndexWriterConfig(new KeywordAnalyzer());
    iwc.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    this.writer = new IndexWriter(dir, iwc);
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

  /** Starts this docstore part from a base snapshot's part (a changelog build); call before anything else. */
  public void addBase(Path basePart) throws IOException {
    try (FSDirectory base = FSDirectory.open(basePart)) {
      writer.addIndexes(base);
    }
    recount = true;
  }

  /** Removes every parent of {@code docId} added so far; parents added afterwards are kept. */
  public void deleteDocument(String docId) throws IOException {
    writer.deleteDocuments(new Term(DOC_ID, docId));
    recount = true;
  }

  /** Parents in this part: those added, or after {@link #close} of a part with a base or deletes, all live ones. */
  public long parents() {
    return parents;
  }

  @Override
  public void close() throws IOException {
    try {
      writer.forceMerge(1);
      writer.commit();
    } finally {
      writer.close();
      try {
        if (recount) {
          try (DirectoryReader reader = DirectoryReader.open(dir)) {
            parents = reader.numDocs();
          }
        }
      } finally {
        dir.close();
      }
    }
  }
}
