package dev.kiln.langchain4j;

import dev.kiln.client.KilnBackend;
import dev.kiln.client.KilnFilter;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.store.embedding.filter.Filter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A Kiln snapshot (searched in this JVM) or a {@code kiln serve} as LangChain4j's {@link ContentRetriever}:
 * each query is one Kiln search (hybrid by default), each hit one {@link Content} whose {@link TextSegment}
 * holds the chunk text and the document's metadata, and Kiln's own fields under {@value #CHUNK_ID},
 * {@value #DOC_ID}, {@value #TITLE} (and {@value #ROOT} in a federated search); {@link ContentMetadata#SCORE}
 * is Kiln's score and {@link ContentMetadata#EMBEDDING_ID} the chunk id.
 *
 * <p>Filters are LangChain4j's own ({@link LangChain4jFilters} says which are supported); one Kiln
 * cannot evaluate is refused when the retriever is built (a fixed filter) or at the query (a dynamic one),
 * never dropped. Thread-safe when the backend is (both of Kiln's are).
 */
public final class KilnContentRetriever implements ContentRetriever {
  /** The segment metadata key of the chunk's id ({@code docId#ordinal}). */
  public static final String CHUNK_ID = "kiln.chunk_id";
  /** The segment metadata key of the document's id. */
  public static final String DOC_ID = "kiln.doc_id";
  /** The segment metadata key of the document's title. */
  public static final String TITLE = "kiln.title";
  /** The segment metadata key of the snapshots root a federated hit came from. */
  public static final String ROOT = "kiln.root";

  private final KilnBackend backend;
  private final int maxResults;
  private final SearchMode mode;
  private final Function<Query, KilnFilter> filter;

  private KilnContentRetriever(Builder b) {
    this.backend = b.backend;
    this.maxResults = b.maxResults;
    this.mode = b.mode;
    if (b.dynamicFilter != null) {
      Function<Query, Filter> dynamic = b.dynamicFilter;
      this.filter = q -> LangChain4jFilters.toKiln(dynamic.apply(q));
    } else {
      KilnFilter fixed = LangChain4jFilters.toKiln(b.filter);
      this.filter = q -> fixed;
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public List<Content> retrieve(Query query) {
    List<SearchHit> hits = backend.search(query.text(), mode, maxResults, filter.apply(query));
    List<Content> out = new ArrayList<>(hits.size());
    for (SearchHit hit : hits) {
      Map<ContentMetadata, Object> meta = new LinkedHashMap<>();
      meta.put(ContentMetadata.SCORE, hit.score());
      meta.put(ContentMetadata.EMBEDDING_ID, hit.chunkId());
      out.add(Content.from(TextSegment.from(hit.text(), metadata(hit)), meta));
    }
    return out;
  }

  private static Metadata metadata(SearchHit hit) {
    Metadata m = new Metadata();
    hit.metadata().forEach(m::put);
    m.put(CHUNK_ID, hit.chunkId());
    m.put(DOC_ID, hit.docId());
    if (hit.title() != null) {
      m.put(TITLE, hit.title());
    }
    if (hit.root() != null) {
      m.put(ROOT, hit.root());
    }
    return m;
  }

  /** Settings of a {@link KilnContentRetriever}; {@link #backend} is required. */
  public static final class Builder {
    private KilnBackend backend;
    private int maxResults = 5;
    private SearchMode mode = SearchMode.HYBRID;
    private Filter filter;
    private Function<Query, Filter> dynamicFilter;

    private Builder() {}

    /** Where to search: {@code KilnBackends.open(root)}, {@code .embedded(searcher)} or {@code .http(url)}. */
    public Builder backend(KilnBackend value) {
      this.backend = value;
      return this;
    }

    /** Contents per query, 1..1000 (default 5). */
    public Builder maxResults(int value) {
      this.maxResults = value;
      return this;
    }

    /** hybrid (default), dense or bm25. */
    public Builder mode(SearchMode value) {
      this.mode = value;
      return this;
    }

    /** A filter every query gets. */
    public Builder filter(Filter value) {
      this.filter = value;
      return this;
    }

    /** A filter chosen per query (by the user in its metadata, say); replaces {@link #filter}. */
    public Builder dynamicFilter(Function<Query, Filter> value) {
      this.dynamicFilter = value;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the setting that is missing or out of range
     * @throws dev.kiln.client.UnsupportedFilterException for a fixed filter Kiln cannot evaluate
     */
    public KilnContentRetriever build() {
      Objects.requireNonNull(mode, "mode");
      if (backend == null) {
        throw new IllegalArgumentException("KilnContentRetriever: backend is required (KilnBackends.open(root),"
            + " .embedded(searcher) or .http(url))");
      }
      if (maxResults < 1 || maxResults > SearchRequest.MAX_K) {
        throw new IllegalArgumentException("KilnContentRetriever: maxResults must be in 1.." + SearchRequest.MAX_K
            + ", was " + maxResults);
      }
      return new KilnContentRetriever(this);
    }
  }
}
