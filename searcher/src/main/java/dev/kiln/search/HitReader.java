package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;

/** Loads the stored fields of top documents into {@link SearchHit}s. */
final class HitReader {
  private HitReader() {}

  static List<SearchHit> read(IndexSearcher searcher, TopDocs top) throws IOException {
    // One StoredFields per call: instances are cheap and must not be shared between threads.
    StoredFields stored = searcher.storedFields();
    List<SearchHit> hits = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc sd : top.scoreDocs) {
      hits.add(toHit(stored.document(sd.doc), sd.score));
    }
    return hits;
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
}
