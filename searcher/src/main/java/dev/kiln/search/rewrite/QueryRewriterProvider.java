package dev.kiln.search.rewrite;

/**
 * A query rewriter that can be chosen by name: {@code --rewriter NAME} on the command line and in
 * {@code kiln serve}, {@code rewriter=NAME} per HTTP request, {@link dev.kiln.search.SearcherBuilder#rewriter(String)}
 * and {@link dev.kiln.search.RequestOptions} in Java. Found with {@link java.util.ServiceLoader}: a jar on
 * the classpath lists its providers in {@code META-INF/services/dev.kiln.search.rewrite.QueryRewriterProvider}
 * (docs/REWRITERS.md shows one that calls an LLM).
 */
public interface QueryRewriterProvider {

  /** The name users choose it by: lower case letters, digits and dashes, unique on the classpath. */
  String name();

  /** One line for help texts and the startup log. */
  String description();

  /**
   * The rewriter, made once per process and shared by every request that names it: it must be
   * thread-safe.
   */
  QueryRewriter create();
}
