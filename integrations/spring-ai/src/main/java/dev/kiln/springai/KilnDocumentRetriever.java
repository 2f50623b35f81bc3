package dev.kiln.springai;

import dev.kiln.client.KilnBackend;
import dev.kiln.client.KilnFilter;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.rag.retrieval.search.VectorStoreDocumentRetriever;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * A Kiln snapshot (searched in this JVM) or a {@code kiln serve} as Spring AI's {@link DocumentRetriever},
 * for {@code RetrievalAugmentationAdvisor}: each query is one Kiln search (hybrid by default), each hit one
 * {@link Document} with the chunk id as its id, the chunk text, the document's metadata plus Kiln's own
 * fields ({@value #CHUNK_ID}, {@value #DOC_ID}, {@value #TITLE}, {@value #ROOT} when federated), and
 * Kiln's score.
 *
 * <p>Filters are Spring AI's ({@link SpringAiFilters} says which are supported): a fixed one from the
 * builder, replaced per request, as with {@link VectorStoreDocumentRetriever}, by the query context's
 * {@link VectorStoreDocumentRetriever#FILTER_EXPRESSION} (an expression or its text). One Kiln cannot
 * evaluate is refused, never dropped. Thread-safe when the backend is (both of Kiln's are).
 */
public final class KilnDocumentRetriever implements DocumentRetriever {
  /** The metadata key of the chunk's id ({@code docId#ordinal}), also the document's id. */
  public static final String CHUNK_ID = "kiln.chunk_id";
  /** The metadata key of the document's id. */
  public static final String DOC_ID = "kiln.doc_id";
  /** The metadata key of the document's title. */
  public static final String TITLE = "kiln.title";
  /** The metadata key of the snapshots root a federated hit came from. */
  public static final String ROOT = "kiln.root";

  private final KilnBackend backend;
  private final int topK;
  private final SearchMode mode;
  private final KilnFilter filter;

  private KilnDocumentRetriever(Builder b) {
    this.backend = b.backend;
    this.topK = b.topK;
    this.mode = b.mode;
    this.filter = b.filter;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public List<Document> retrieve(Query query) {
    List<SearchHit> hits = backend.search(query.text(), mode, topK, filter(query));
    List<Document> out = new ArrayList<>(hits.size());
    for (SearchHit hit : hits) {
      Map<String, Object> metadata = new LinkedHashMap<>(hit.metadata());
      metadata.put(CHUNK_ID, hit.chunkId());
      metadata.put(DOC_ID, hit.docId());
      if (hit.title() != null) {
        metadata.put(TITLE, hit.title());
      }
      if (hit.root() != null) {
        metadata.put(ROOT, hit.root());
      }
      out.add(Document.builder().id(hit.chunkId()).text(hit.text()).metadata(metadata).score(hit.score()).build());
    }
    return out;
  }

  private KilnFilter filter(Query query) {
    Object requested = query.context() == null ? null : query.context().get(VectorStoreDocumentRetriever.FILTER_EXPRESSION);
    return switch (requested) {
      case null -> filter;
      case Filter.Expression e -> SpringAiFilters.toKiln(e);
      case String s -> SpringAiFilters.toKiln(s);
      default -> throw new IllegalArgumentException(VectorStoreDocumentRetriever.FILTER_EXPRESSION
          + " must be a Filter.Expression or its text, was " + requested.getClass().getName());
    };
  }

  /** Settings of a {@link KilnDocumentRetriever}; {@link #backend} is required. */
  public static final class Builder {
    private KilnBackend backend;
    private int topK = 4;
    private SearchMode mode = SearchMode.HYBRID;
    private KilnFilter filter = KilnFilter.none();

    private Builder() {}

    /** Where to search: {@code KilnBackends.open(root)}, {@code .embedded(searcher)} or {@code .http(url)}. */
    public Builder backend(KilnBackend value) {
      this.backend = value;
      return this;
    }

    /** Documents per query, 1..1000 (default 4, as Spring AI's vector store retriever). */
    public Builder topK(int value) {
      this.topK = value;
      return this;
    }

    /** hybrid (default), dense or bm25. */
    public Builder mode(SearchMode value) {
      this.mode = Objects.requireNonNull(value, "mode");
      return this;
    }

    /**
     * A filter every query gets unless its context names one.
     *
     * @throws dev.kiln.client.UnsupportedFilterException when Kiln cannot evaluate it
     */
    public Builder filterExpression(Filter.Expression value) {
      this.filter = SpringAiFilters.toKiln(value);
      return this;
    }

    /** As {@link #filterExpression(Filter.Expression)}, in Spring AI's text form ({@code lang == 'en'}). */
    public Builder filterExpression(String value) {
      this.filter = SpringAiFilters.toKiln(value);
      return this;
    }

    /** @throws IllegalArgumentException naming the setting that is missing or out of range */
    public KilnDocumentRetriever build() {
      if (backend == null) {
        throw new IllegalArgumentException("KilnDocumentRetriever: backend is required (KilnBackends.open(root),"
            + " .embedded(searcher) or .http(url))");
      }
      if (topK < 1 || topK > SearchRequest.MAX_K) {
        throw new IllegalArgumentException("KilnDocumentRetriever: topK must be in 1.." + SearchRequest.MAX_K
            + ", was " + topK);
      }
      return new KilnDocumentRetriever(this);
    }
  }
}
