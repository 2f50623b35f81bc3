package dev.kiln.search.http;

import dev.kiln.config.ConfigException;
import dev.kiln.search.RequestOptions;
import dev.kiln.search.fusion.FusionMethod;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToIntFunction;

/**
 * The retrieval options a request may set over the server's (query parameters of {@code GET}, fields
 * of a {@code POST} body): the one place each option's name, type, meaning and operator limit are
 * declared. {@link RequestOptionParser} reads them, {@code openapi.json} documents them (a test holds
 * the two together), and {@link RequestLimits} bounds those that cost time.
 */
enum RequestOption {
  EF("ef", Type.INTEGER, "HNSW candidates each graph walk collects (at least k); 0 = the snapshot's default",
      RequestLimits::maxEf, "--max-ef"),
  FUSION("fusion", Type.FUSION, "how hybrid search fuses its dense and BM25 lists: rrf or blend", null, null),
  ALPHA("alpha", Type.NUMBER, "weight of the dense side in the blend fusion, 0..1", null, null),
  DENSE_DEPTH("dense-depth", Type.INTEGER, "candidates hybrid search takes from HNSW before fusing",
      RequestLimits::maxDepth, "--max-depth"),
  BM25_DEPTH("bm25-depth", Type.INTEGER, "candidates hybrid search takes from BM25 before fusing",
      RequestLimits::maxDepth, "--max-depth"),
  MIN_SCORE("min-score", Type.GATE, "relevance gate: drop hits whose calibrated score is below it; off = none",
      null, null),
  MAX_DROP("max-drop", Type.GATE, "relevance gate: drop hits more than this below the top score; off = none",
      null, null),
  RERANK("rerank", Type.BOOLEAN, "false skips the server's reranker; true needs one (--rerank-model)", null, null),
  RERANK_DEPTH("rerank-depth", Type.INTEGER, "candidates the reranker rescores (at least k)",
      RequestLimits::maxRerankDepth, "--max-rerank-depth"),
  FEEDBACK("feedback", Type.BOOLEAN, "pseudo-relevance feedback (dense, hybrid-lexical and RM3) on or off", null,
      null),
  REWRITER("rewriter", Type.STRING, "a query rewriter by name (none, rm3, keywords, or one on the server's"
      + " classpath)", null, null);

  /** How a value is written. */
  enum Type {
    INTEGER, NUMBER, BOOLEAN, STRING, FUSION,
    /** A number, or {@code off}. */
    GATE
  }

  final String parameter;
  final Type type;
  final String description;
  private final ToIntFunction<RequestLimits> limit;
  /** The {@code kiln serve} flag that sets the limit, named in the refusal. */
  final String limitFlag;

  RequestOption(String parameter, Type type, String description, ToIntFunction<RequestLimits> limit,
      String limitFlag) {
    this.parameter = parameter;
    this.type = type;
    this.description = description;
    this.limit = limit;
    this.limitFlag = limitFlag;
  }

  /** The option called {@code name}, or null. */
  static RequestOption named(String name) {
    for (RequestOption o : values()) {
      if (o.parameter.equals(name)) {
        return o;
      }
    }
    return null;
  }

  /** Every option's name, for messages. */
  static List<String> names() {
    return Arrays.stream(values()).map(o -> o.parameter).toList();
  }

  /** The operator's limit on this option, or null when it has none. */
  Integer limit(RequestLimits limits) {
    return limit == null ? null : limit.applyAsInt(limits);
  }

  /**
   * Sets this option on {@code b} from its text form, checked against its type and {@code limits}.
   *
   * @throws BadRequest naming the option (and the limit it passes)
   */
  void apply(String raw, RequestOptions.Builder b, RequestLimits limits) {
    String v = raw.strip();
    switch (this) {
      case EF -> b.ef(bounded(v, limits, 0));
      case DENSE_DEPTH -> b.denseDepth(bounded(v, limits, 1));
      case BM25_DEPTH -> b.bm25Depth(bounded(v, limits, 1));
      case RERANK_DEPTH -> b.rerankDepth(bounded(v, limits, 1));
      case ALPHA -> b.alpha(number(v));
      case MIN_SCORE -> b.minScore(gate(v));
      case MAX_DROP -> b.maxDrop(gate(v));
      case RERANK -> b.rerank(bool(v));
      case FEEDBACK -> b.feedback(bool(v));
      case REWRITER -> b.rewriter(v);
      case FUSION -> {
        try {
          b.fusion(FusionMethod.parse(v));
        } catch (ConfigException | IllegalArgumentException e) {
          throw new BadRequest(parameter + " must be rrf or blend, was '" + raw + "'");
        }
      }
    }
  }

  private int bounded(String v, RequestLimits limits, int min) {
    Integer max = limit(limits);
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new BadRequest(parameter + " must be an integer in " + min + ".." + max + ", was '" + v + "'");
    }
    if (n < min) {
      throw new BadRequest(parameter + " must be >= " + min + ", was " + n);
    }
    if (max != null && n > max) {
      throw new BadRequest(parameter + " must be <= " + max + ", this server's limit (" + limitFlag + "), was " + n);
    }
    return n;
  }

  private double number(String v) {
    try {
      double d = Double.parseDouble(v);
      if (Double.isFinite(d)) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new BadRequest(parameter + " must be a finite number, was '" + v + "'");
  }

  private double gate(String v) {
    return v.toLowerCase(Locale.ROOT).equals("off") ? Double.NaN : number(v);
  }

  private boolean bool(String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new BadRequest(parameter + " must be true or false, was '" + v + "'");
    };
  }
}
