package dev.kiln.search.http;

/**
 * The most a single request may ask of the server through its retrieval options ({@link RequestOption}):
 * the operator's guard against one client making every search slow. A request above a limit is
 * answered 400 naming the option and the limit. Set with {@code kiln serve --max-ef}, {@code
 * --max-depth}, {@code --max-rerank-depth}; logged at start.
 *
 * @param maxEf largest {@code ef} (HNSW candidates per graph walk)
 * @param maxDepth largest {@code dense-depth} and {@code bm25-depth} (candidates per path before fusion)
 * @param maxRerankDepth largest {@code rerank-depth} (cross-encoder inferences per request)
 */
public record RequestLimits(int maxEf, int maxDepth, int maxRerankDepth) {
  /** Ten times the defaults' work at most: ef 1,000 (auto is 100 up to 50k vectors a segment). */
  public static final int DEFAULT_MAX_EF = 1000;
  public static final int DEFAULT_MAX_DEPTH = 1000;
  /** A cross-encoder pass over 200 passages takes seconds on a CPU: more is a denial of service. */
  public static final int DEFAULT_MAX_RERANK_DEPTH = 200;
  public static final RequestLimits DEFAULTS =
      new RequestLimits(DEFAULT_MAX_EF, DEFAULT_MAX_DEPTH, DEFAULT_MAX_RERANK_DEPTH);

  public RequestLimits {
    if (maxEf < 1) {
      throw new IllegalArgumentException("max ef must be >= 1, was " + maxEf);
    }
    if (maxDepth < 1) {
      throw new IllegalArgumentException("max depth must be >= 1, was " + maxDepth);
    }
    if (maxRerankDepth < 1) {
      throw new IllegalArgumentException("max rerank depth must be >= 1, was " + maxRerankDepth);
    }
  }

  /** For the start-up log. */
  String describe() {
    return "per-request limits: ef <= " + maxEf + ", dense-depth and bm25-depth <= " + maxDepth
        + ", rerank-depth <= " + maxRerankDepth;
  }
}
