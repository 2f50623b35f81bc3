package dev.kiln.search;

import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;

/**
 * Nearest chunks to the query's embedding: the filtered HNSW walk ({@code options.ef()} candidates,
 * exact search for narrow filters), optionally with the vector feedback pass. {@code --mode dense}
 * runs without feedback, as it always has; hybrid's dense leg runs with {@link
 * SearchOptions#denseFeedback()}, which is off unless configured.
 */
final class DenseRetriever implements Retriever {
  private final Retrieval retrieval;
  private final boolean feedback;

  DenseRetriever(Retrieval retrieval, boolean feedback) {
    this.retrieval = retrieval;
    this.feedback = feedback;
  }

  @Override
  public String name() {
    return feedback ? "dense+feedback" : "dense";
  }

  @Override
  public boolean usesTerms() {
    return false;
  }

  @Override
  public boolean usesVector() {
    return true;
  }

  /** Its scores are Lucene's dot-product score, {@code (1 + cosine) / 2}: already the calibrated one. */
  @Override
  public boolean scoresCalibrated() {
    return true;
  }

  @Override
  public List<Candidate> retrieve(RetrieverQuery query, int k, MetadataFilter filter) throws IOException {
    TopDocs top = feedback ? retrieval.denseWithFeedback(query.vector(), k, filter)
        : retrieval.dense(query.vector(), k, filter);
    return candidates(top);
  }

  /** Lucene's top docs as candidates: float scores widen exactly. */
  static List<Candidate> candidates(TopDocs top) {
    List<Candidate> out = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc sd : top.scoreDocs) {
      out.add(new Candidate(sd.doc, sd.score));
    }
    return out;
  }
}
