package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;

/**
 * Reads what one request needs of its candidates' stored fields, and no more: retrieval works on
 * Lucene doc ids and scores, fusion on chunk ids, feedback on the text or document id of a few
 * chunks, and only the hits finally returned are read whole. Chunk ids are cached for the request,
 * since the same candidates come back in several passes. One instance per request: {@link
 * StoredFields} must not be shared between threads.
 */
final class HitReader {
  private final StoredFields stored;
  private final Map<Integer, String> chunkIds = new HashMap<>();

  HitReader(IndexSearcher searcher) throws IOException {
    this.stored = searcher.storedFields();
  }

  /** Every hit of {@code top} read whole. */
  static List<SearchHit> read(IndexSearcher searcher, TopDocs top) throws IOException {
    return new HitReader(searcher).hits(top);
  }

  List<SearchHit> hits(TopDocs top) throws IOException {
    List<SearchHit> hits = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc sd : top.scoreDocs) {
      hits.add(hit(sd.doc, sd.score));
    }
    return hits;
  }

  SearchHit hit(int doc, double score) throws IOException {
    return toHit(document(doc), score);
  }

  /** A candidate read whole. */
  Document document(int doc) throws IOException {
    return stored.document(doc);
  }

  /** The chunk id of a candidate: the key fusion joins rankings on and breaks ties by. */
  String chunkId(int doc) throws IOException {
    String id = chunkIds.get(doc);
    if (id == null) {
      id = field(doc, ShardSchema.CHUNK_ID);
      chunkIds.put(doc, id);
    }
    return id;
  }

  String docId(int doc) throws IOException {
    return field(doc, ShardSchema.DOC_ID);
  }

  String text(int doc) throws IOException {
    return field(doc, ShardSchema.TEXT);
  }

  /** One stored string field, the visit stopping as soon as it is read. */
  private String field(int doc, String name) throws IOException {
    OneField visitor = new OneField(name);
    stored.document(doc, visitor);
    return visitor.value;
  }

  static SearchHit toHit(Document doc, double score) {
    Map<String, String> metadata = new TreeMap<>();
    for (IndexableField f : doc.getFields()) {
      if (f.name().startsWith(ShardSchema.META_PREFIX)) {
        metadata.put(f.name().substring(ShardSchema.META_PREFIX.length()), f.stringValue());
      }
    }
    return new SearchHit(
        doc.get(ShardSchema.CHUNK_ID),
        doc.get(ShardSchema.DOC_ID),
        score,
        doc.get(ShardSchema.TEXT),
        doc.get(ShardSchema.TITLE),
        metadata);
  }

  private static final class OneField extends StoredFieldVisitor {
    private final String name;
    private String value;

    OneField(String name) {
      this.name = name;
    }

    @Override
    public Status needsField(FieldInfo field) {
      if (value != null) {
        return Status.STOP;
      }
      return field.name.equals(name) ? Status.YES : Status.NO;
    }

    @Override
    public void stringField(FieldInfo field, String v) {
      // Document.get returns a field's first value; so does this.
      if (value == null) {
        value = v;
      }
    }
  }
}
