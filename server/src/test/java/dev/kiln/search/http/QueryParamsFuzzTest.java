package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.testing.FuzzTries;
import dev.kiln.testing.JsonMutations;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.function.Executable;

/**
 * Fuzzes what a client sends to {@code /search} and {@code /context} ({@link QueryParams}): random
 * query strings (percent escapes, {@code &}, {@code =}, filters), JSON bodies mutated from a valid one,
 * and {@code budget} values. Each gives a request or a {@link BadRequest} (an HTTP 400) within a time
 * budget; nothing else is thrown (anything else would be a 500).
 */
@AddLifecycleHook(FuzzTries.class)
class QueryParamsFuzzTest {
  static final Duration BUDGET = Duration.ofSeconds(5);
  static final ObjectMapper JSON = new ObjectMapper();
  static final byte[] BODY = """
      {"q": "cone 6 glaze", "k": 5, "mode": "hybrid", "budget": 512,
       "filter": {"lang": "en", "tenant": ["acme", "globex"], "year": {"gte": 2020, "lt": "2026"}}}
      """.getBytes(StandardCharsets.UTF_8);
  static final byte[] LIST_BODY = """
      {"query": "kiln", "filter": ["lang:en", "year>=2020", "2020<=year<2026"]}
      """.getBytes(StandardCharsets.UTF_8);

  @Property(tries = 1500)
  void queryStrings(@ForAll("queryStrings") String raw) {
    badRequestOr(() -> assertNotNull(QueryParams.fromParams(QueryParams.parseQueryString(raw))));
  }

  @Property(tries = 1000)
  void jsonBodies(@ForAll("bodies") byte[] body, @ForAll("mutations") List<JsonMutations.Mutation> mutations) {
    badRequestOr(() -> {
      JsonNode node = JSON.readTree(JsonMutations.apply(body, mutations));
      QueryParams.checkFields(node, "context");
      assertNotNull(QueryParams.fromJson(node));
      QueryParams.budget(node.path("budget").isMissingNode() ? null : node.path("budget").asText());
    });
  }

  @Property(tries = 500)
  void budgets(@ForAll("budgetValues") String raw) {
    badRequestOr(() -> QueryParams.budget(raw));
  }

  static void badRequestOr(Executable body) {
    assertTimeoutPreemptively(BUDGET, () -> {
      try {
        body.execute();
      } catch (BadRequest expected) {
        // a 400 with a message
      }
    });
  }

  @Provide
  Arbitrary<String> queryStrings() {
    Arbitrary<String> token = Arbitraries.oneOf(
        Arbitraries.of("q", "k", "mode", "filter", "budget", "=", "&", "%", "%2", "%25", "%zz", "%C3", "%C3%A9",
            "%ED%A0%80", "%00", "+", "lang:en", "year>=2020", "2020<year<=2026", "year%3E%3D3", "hybrid", "bm25",
            "dense", "10", "0", "-1", "2147483648", "1e3", " ", "%20", "\u00e9", "\ud800"),
        Arbitraries.strings().ofMaxLength(6));
    return token.list().ofMaxSize(16).map(l -> String.join("", l));
  }

  @Provide
  Arbitrary<byte[]> bodies() {
    return Arbitraries.of(BODY, LIST_BODY);
  }

  @Provide
  Arbitrary<List<JsonMutations.Mutation>> mutations() {
    return JsonMutations.mutationLists();
  }

  @Provide
  Arbitrary<String> budgetValues() {
    return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(12), Arbitraries.integers().map(String::valueOf),
        Arbitraries.of(" 1 ", "131072", "131073", "+5", "٣", "0x10", ""));
  }
}
