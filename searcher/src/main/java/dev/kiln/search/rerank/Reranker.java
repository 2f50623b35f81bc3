package dev.kiln.search.rerank;

import java.io.Closeable;
import java.util.List;

/**
 * Rescores retrieved passages against the query, reading both together (a cross-encoder), which
 * is slower than retrieval but sees word interactions the bi-encoder and BM25 cannot. Thread-safe.
 */
public interface Reranker extends Closeable {

  /** Relevance scores of {@code passages} for {@code query}, in input order; higher is better. */
  float[] score(String query, List<String> passages);

  /** What to call it in logs and responses. */
  String name();
}
