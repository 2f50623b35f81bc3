package dev.kiln.eval;

import dev.kiln.config.ConfigException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Relevance judgments in BEIR's {@code qrels/*.tsv} form: {@code query-id TAB corpus-id TAB score}
 * per line, with an optional header line. Scores are integer grades and are kept as given: nDCG
 * uses them as gains, while recall and MRR count only grades above zero as relevant.
 */
public final class Qrels {
  private final Map<String, Map<String, Integer>> byQuery;

  private Qrels(Map<String, Map<String, Integer>> byQuery) {
    this.byQuery = byQuery;
  }

  public static Qrels read(Path file) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return parse(in, file.toString());
    }
  }

  /**
   * Parses qrels text.
   *
   * @param source names the input in error messages
   * @throws ConfigException on a line that is not three tab-separated fields with an integer score
   */
  public static Qrels parse(Reader reader, String source) throws IOException {
    BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
    Map<String, Map<String, Integer>> byQuery = new LinkedHashMap<>();
    String line;
    int lineNo = 0;
    while ((line = in.readLine()) != null) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      String[] cols = line.strip().split("\t");
      if (cols.length != 3) {
        throw new ConfigException(source + ":" + lineNo + ": expected 'query-id<TAB>corpus-id<TAB>score', found '" + line + "'");
      }
      int grade;
      try {
        grade = Integer.parseInt(cols[2].strip());
      } catch (NumberFormatException e) {
        // BEIR files start with "query-id corpus-id score"; only the first line may be a header.
        if (lineNo == 1) {
          continue;
        }
        throw new ConfigException(source + ":" + lineNo + ": score '" + cols[2] + "' is not an integer");
      }
      byQuery.computeIfAbsent(cols[0].strip(), q -> new LinkedHashMap<>()).put(cols[1].strip(), grade);
    }
    Map<String, Map<String, Integer>> frozen = new LinkedHashMap<>();
    byQuery.forEach((q, docs) -> frozen.put(q, Collections.unmodifiableMap(docs)));
    return new Qrels(Collections.unmodifiableMap(frozen));
  }

  /** Ids of the queries that have at least one judgment, in file order. */
  public Set<String> queryIds() {
    return byQuery.keySet();
  }

  /** The judged documents of a query and their grades; empty for an unjudged query. */
  public Map<String, Integer> judgments(String queryId) {
    return byQuery.getOrDefault(queryId, Map.of());
  }

  /** Number of judged queries. */
  public int size() {
    return byQuery.size();
  }
}
