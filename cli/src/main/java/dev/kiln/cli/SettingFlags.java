package dev.kiln.cli;

import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;

/**
 * The one place the command line names the searcher's settings: each {@link Setting} the library refuses
 * ({@link SettingException}) as the flag that sets it, so that {@code search}, {@code eval} and
 * {@code serve} print {@code --alpha must be in [0, 1], was 2.0} where the library says {@code alpha}.
 */
final class SettingFlags {
  private SettingFlags() {}

  /** The flag (or flags) that set {@code setting}. */
  static String flag(Setting setting) {
    return switch (setting) {
      case FILTER -> "--filter";
      case FUSION -> "--fusion";
      case RRF_K -> "--rrf-k";
      case ALPHA -> "--alpha";
      case DENSE_DEPTH -> "--dense-depth (or --depth)";
      case BM25_DEPTH -> "--bm25-depth (or --depth)";
      case EXACT_FILTER_RATIO -> "--exact-filter-ratio";
      case MIN_SCORE -> "--min-score";
      case MAX_DROP -> "--max-drop";
      case RERANK -> "--rerank-model (a request's rerank)";
      case FEEDBACK -> "--prf";
      case REWRITER -> "--rewriter";
      case RERANKER -> "--rerank-model";
      case RERANK_DEPTH -> "--rerank-depth";
      case EF -> "--ef";
      case QUERY_EMBEDDERS -> "--query-embedders";
      case QUERY_CACHE -> "--query-cache";
      case FEEDBACK_SCOPE -> "--prf-scope";
      case DENSE_FEEDBACK_DOCS -> "--dense-prf-docs";
      case DENSE_FEEDBACK_WEIGHT -> "--dense-prf-weight";
      case LEXICAL_FEEDBACK_DOCS -> "--hybrid-prf-docs";
      case LEXICAL_FEEDBACK_ORIGINAL_WEIGHT -> "--hybrid-prf-orig-weight";
      case LEXICAL_FEEDBACK_MAX_DOC_RATIO -> "--hybrid-prf-max-df";
    };
  }

  /** A failure's message as the command line prints it: a refused setting named by its flag. */
  static String message(Throwable t) {
    return t instanceof SettingException s ? s.message(SettingFlags::flag) : t.getMessage();
  }
}
