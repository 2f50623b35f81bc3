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
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
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

  public ParentStoreWriter(Path directory) throws IOException {
    if (Files.exists(directory) && Files.list(directory).findAny().isPresent()) {
      throw new IOException("docstore directory " + directory + " is not empty: refusing to mix two attempts");
    }
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
      dir.close();
    }
  }
}
