package dev.kiln.search.rewrite;

import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The rewriters on the classpath, by name ({@link QueryRewriterProvider}, found once with
 * {@link ServiceLoader}). Each named rewriter is made on first use and shared.
 */
public final class QueryRewriters {
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
  private static volatile Map<String, QueryRewriterProvider> providers;
  private static final Map<String, QueryRewriter> MADE = new ConcurrentHashMap<>();

  private QueryRewriters() {}

  /** Every provider by name, sorted. */
  public static Map<String, QueryRewriterProvider> providers() {
    Map<String, QueryRewriterProvider> p = providers;
    if (p == null) {
      synchronized (QueryRewriters.class) {
        p = providers;
        if (p == null) {
          p = load();
          providers = p;
        }
      }
    }
    return p;
  }

  private static Map<String, QueryRewriterProvider> load() {
    Map<String, QueryRewriterProvider> byName = new TreeMap<>();
    for (QueryRewriterProvider provider : ServiceLoader.load(QueryRewriterProvider.class,
        QueryRewriters.class.getClassLoader())) {
      String name = provider.name();
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalStateException("query rewriter provider " + provider.getClass().getName()
            + " has the name '" + name + "': use lower case letters, digits and dashes");
      }
      QueryRewriterProvider earlier = byName.putIfAbsent(name, provider);
      if (earlier != null && earlier.getClass() != provider.getClass()) {
        throw new IllegalStateException("two query rewriters are named '" + name + "': "
            + earlier.getClass().getName() + " and " + provider.getClass().getName());
      }
    }
    return Map.copyOf(byName);
  }

  /** The names users may choose, sorted, comma separated: for errors and help. */
  public static String names() {
    return String.join(", ", new TreeMap<>(providers()).keySet());
  }

  /**
   * The rewriter called {@code name}.
   *
   * @throws SettingException ({@link Setting#REWRITER}) naming the known ones, when none is called so
   */
  public static QueryRewriter named(String name) {
    QueryRewriterProvider provider = providers().get(name);
    if (provider == null) {
      throw new SettingException(Setting.REWRITER, " '" + name + "' is unknown; known rewriters: " + names());
    }
    return MADE.computeIfAbsent(name, n -> provider.create());
  }
}
