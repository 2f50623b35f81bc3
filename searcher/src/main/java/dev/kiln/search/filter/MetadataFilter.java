package dev.kiln.search.filter;

import dev.kiln.config.ConfigException;
import dev.kiln.index.ShardSchema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * Exact-match conditions on chunk metadata ({@code meta.<key>} keyword fields). Different keys must
 * all match; several values of one key match any of them ({@code lang=en lang=de}). Values are
 * compared as written, case included, because tenants and ids are opaque.
 */
public final class MetadataFilter {
  /**
   * Most distinct keys in one filter. Each key is one clause of the query, and Lucene refuses a query
   * of more than 1,024 clauses (including the query's own) at search time; real filters name a few
   * keys, so a longer one is refused here as bad input, before any search.
   */
  public static final int MAX_KEYS = 64;

  private static final MetadataFilter NONE = new MetadataFilter(Collections.emptySortedMap());

  private final Map<String, Set<String>> conditions;

  private MetadataFilter(Map<String, Set<String>> conditions) {
    this.conditions = conditions;
  }

  public static MetadataFilter none() {
    return NONE;
  }

  /** A filter from a key-to-values map; an empty map filters nothing. */
  public static MetadataFilter of(Map<String, ? extends Iterable<String>> conditions) {
    Map<String, Set<String>> copy = new TreeMap<>();
    conditions.forEach((key, values) -> {
      for (String v : values) {
        copy.computeIfAbsent(checkKey(key), k -> new LinkedHashSet<>()).add(v);
      }
    });
    if (copy.size() > MAX_KEYS) {
      throw new ConfigException("--filter names " + copy.size() + " distinct keys; at most " + MAX_KEYS
          + " are allowed (several values of one key are fine: lang=en lang=de)");
    }
    return copy.isEmpty() ? NONE : new MetadataFilter(Collections.unmodifiableMap(copy));
  }

  /**
   * Parses {@code key=value} or {@code key:value} expressions (the CLI uses {@code =}, URLs often
   * {@code :}); the first separator splits, so values may contain either character.
   *
   * @throws ConfigException naming the malformed expression
   */
  public static MetadataFilter parse(List<String> expressions) {
    if (expressions == null || expressions.isEmpty()) {
      return NONE;
    }
    Map<String, List<String>> conditions = new TreeMap<>();
    for (String e : expressions) {
      int eq = e.indexOf('=');
      int colon = e.indexOf(':');
      int sep = eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
      if (sep <= 0 || sep == e.length() - 1) {
        throw new ConfigException("malformed --filter '" + e + "': expected KEY=VALUE");
      }
      conditions.computeIfAbsent(e.substring(0, sep).strip(), k -> new ArrayList<>())
          .add(e.substring(sep + 1));
    }
    return of(conditions);
  }

  private static String checkKey(String key) {
    if (key == null || key.isBlank() || !key.matches("[A-Za-z0-9_.\\-]+")) {
      throw new ConfigException("malformed --filter key '" + key
          + "': use letters, digits, '_', '-' or '.'");
    }
    return key;
  }

  public boolean isEmpty() {
    return conditions.isEmpty();
  }

  public Map<String, Set<String>> conditions() {
    return conditions;
  }

  /** Whether a chunk with this metadata passes; used to check results, not to search. */
  public boolean matches(Map<String, String> metadata) {
    for (Map.Entry<String, Set<String>> c : conditions.entrySet()) {
      if (!c.getValue().contains(metadata.get(c.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** The Lucene filter, or {@code null} when empty. Non-scoring: it only restricts candidates. */
  public Query toQuery() {
    if (conditions.isEmpty()) {
      return null;
    }
    BooleanQuery.Builder all = new BooleanQuery.Builder();
    for (Map.Entry<String, Set<String>> c : conditions.entrySet()) {
      String field = ShardSchema.META_PREFIX + c.getKey();
      Query one = c.getValue().size() == 1
          ? new TermQuery(new Term(field, c.getValue().iterator().next()))
          : new TermInSetQuery(field, c.getValue().stream().map(BytesRef::new).toList());
      all.add(one, BooleanClause.Occur.FILTER);
    }
    return all.build();
  }

  /** {@code key=value,…} for logs and responses. */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    conditions.forEach((k, vs) -> vs.forEach(v -> parts.add(k + "=" + v)));
    return String.join(",", parts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MetadataFilter f && f.conditions.equals(conditions);
  }

  @Override
  public int hashCode() {
    return conditions.hashCode();
  }
}
