package dev.kiln.search.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.config.ConfigException;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import dev.kiln.search.filter.MetadataFilter;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns a query string or a JSON body into a validated {@link SearchRequest}. */
final class QueryParams {
  static final int DEFAULT_K = 10;
  static final int DEFAULT_BUDGET = 1024;
  static final int MAX_BUDGET = 128 * 1024;

  private QueryParams() {}

  /** {@code q=…&k=…&mode=…&filter=key:value&filter=…} */
  static Map<String, List<String>> parseQueryString(String raw) {
    Map<String, List<String>> params = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      params.computeIfAbsent(key, x -> new ArrayList<>()).add(value);
    }
    return params;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequest("malformed URL encoding: " + e.getMessage());
    }
  }

  static SearchRequest fromParams(Map<String, List<String>> p) {
    return request(first(p, "q"), first(p, "k"), first(p, "mode"), p.getOrDefault("filter", List.of()));
  }

  /** The fields a JSON body of {@code /search} may hold; {@code /context} takes {@code budget} too. */
  private static final List<String> SEARCH_FIELDS = List.of("q", "query", "k", "mode", "filter");

  /**
   * Refuses a field the endpoint does not take, naming it: a misspelt {@code "mode"} would otherwise
   * search in the default mode without a word.
   */
  static void checkFields(JsonNode body, String endpoint) {
    if (body == null || !body.isObject()) {
      return; // fromJson says what the body must be
    }
    boolean context = endpoint.equals("context");
    for (Map.Entry<String, JsonNode> field : body.properties()) {
      String name = field.getKey();
      if (!SEARCH_FIELDS.contains(name) && !(context && name.equals("budget")) && RequestOption.named(name) == null) {
        throw new BadRequest("unknown field '" + name + "': /" + endpoint + " takes q (or query), k, mode, filter"
            + (context ? ", budget" : "") + " and the retrieval options " + String.join(", ", RequestOption.names()));
      }
    }
  }

  /** The query parameters a GET takes: as {@link #checkFields}, a misspelt option is refused by name. */
  static void checkParams(Map<String, List<String>> params, String endpoint) {
    boolean context = endpoint.equals("context");
    for (String name : params.keySet()) {
      if (!(name.equals("q") || name.equals("k") || name.equals("mode") || name.equals("filter"))
          && !(context && name.equals("budget")) && RequestOption.named(name) == null) {
        throw new BadRequest("unknown parameter '" + name + "': /" + endpoint + " takes q, k, mode, filter"
            + (context ? ", budget" : "") + " and the retrieval options " + String.join(", ", RequestOption.names()));
      }
    }
  }

  static SearchRequest fromJson(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new BadRequest("the body must be a JSON object");
    }
    JsonNode q = body.has("q") ? body.get("q") : body.get("query");
    JsonNode k = body.get("k");
    JsonNode mode = body.get("mode");
    if (k != null && !k.isIntegralNumber()) {
      throw new BadRequest("k must be an integer in 1.." + SearchRequest.MAX_K);
    }
    List<String> filters = new ArrayList<>();
    JsonNode f = body.get("filter");
    if (f != null && !f.isNull()) {
      if (f.isObject()) {
        f.properties().forEach(e -> {
          if (e.getValue().isObject()) {
            filters.addAll(range(e.getKey(), e.getValue()));
          } else if (e.getValue().isArray()) {
            e.getValue().forEach(v -> filters.add(e.getKey() + "=" + text(v, "filter." + e.getKey())));
          } else {
            filters.add(e.getKey() + "=" + text(e.getValue(), "filter." + e.getKey()));
          }
        });
      } else if (f.isArray()) {
        f.forEach(v -> filters.add(text(v, "filter")));
      } else {
        throw new BadRequest("filter must be an object {\"key\": \"value\", \"key\": {\"gte\": 3}} or a list of"
            + " \"key:value\" / \"key>=3\"");
      }
    }
    return request(q == null || q.isNull() ? null : text(q, "q"), k == null ? null : k.asText(),
        mode == null || mode.isNull() ? null : text(mode, "mode"), filters);
  }

  private static final Map<String, String> RANGE_OPS = Map.of("gt", ">", "gte", ">=", "lt", "<", "lte", "<=");

  /** {@code "version": {"gte": 3, "lt": 5}} as the expressions {@code version>=3}, {@code version<5}. */
  private static List<String> range(String key, JsonNode bounds) {
    List<String> out = new ArrayList<>();
    bounds.properties().forEach(b -> {
      String op = RANGE_OPS.get(b.getKey());
      JsonNode v = b.getValue();
      if (op == null) {
        throw new BadRequest("filter." + key + ": unknown range operator '" + b.getKey() + "' (gt, gte, lt, lte)");
      }
      if (!(v.isNumber() || v.isTextual())) {
        throw new BadRequest("filter." + key + "." + b.getKey() + " must be a number or a string");
      }
      out.add(key + op + (v.isNumber() ? v.numberValue().toString() : v.asText()));
    });
    if (out.isEmpty()) {
      throw new BadRequest("filter." + key + ": a range needs at least one of gt, gte, lt, lte");
    }
    return out;
  }

  static int budget(String raw) {
    if (raw == null) {
      return DEFAULT_BUDGET;
    }
    try {
      int b = Integer.parseInt(raw.trim());
      if (b >= 1 && b <= MAX_BUDGET) {
        return b;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new BadRequest("budget must be an integer in 1.." + MAX_BUDGET + ", was '" + raw + "'");
  }

  private static String text(JsonNode v, String name) {
    if (!v.isTextual()) {
      throw new BadRequest(name + " must be a string");
    }
    return v.asText();
  }

  private static String first(Map<String, List<String>> p, String key) {
    List<String> v = p.get(key);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  private static SearchRequest request(String q, String k, String mode, List<String> filters) {
    if (q == null || q.isBlank()) {
      throw new BadRequest("missing query: pass q");
    }
    if (q.getBytes(StandardCharsets.UTF_8).length > SearchRequest.MAX_QUERY_BYTES) {
      throw new BadRequest("query is longer than " + SearchRequest.MAX_QUERY_BYTES + " bytes");
    }
    int kv = DEFAULT_K;
    if (k != null) {
      try {
        kv = Integer.parseInt(k.trim());
      } catch (NumberFormatException e) {
        kv = -1;
      }
      if (kv < 1 || kv > SearchRequest.MAX_K) {
        throw new BadRequest("k must be an integer in 1.." + SearchRequest.MAX_K + ", was '" + k + "'");
      }
    }
    try {
      SearchMode m = mode == null ? SearchMode.HYBRID : SearchMode.parse(mode);
      return new SearchRequest(q, m, kv, MetadataFilter.parse(filters));
    } catch (ConfigException | IllegalArgumentException e) { // the filter parser's limits are client errors too
      throw new BadRequest(clientMessage(e));
    }
  }

  /** A refused request's message as the API gives it: a setting named by its query parameter. */
  static String clientMessage(RuntimeException e) {
    return e instanceof SettingException s ? s.message(QueryParams::parameter) : String.valueOf(e.getMessage());
  }

  /**
   * The one place the API names the searcher's settings: the filter by its query parameter; a request
   * sets no other, so any other (the service's own options) by the library's name.
   */
  static String parameter(Setting setting) {
    return switch (setting) {
      case FILTER -> "filter";
      default -> setting.key();
    };
  }
}
