package dev.kiln.eval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * Queries in BEIR's {@code queries.jsonl} form: one JSON object per line with {@code "_id"} and
 * {@code "text"}; other fields (such as {@code "metadata"}) are ignored.
 */
public final class Queries {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, String> textById;

  private Queries(Map<String, String> textById) {
    this.textById = textById;
  }

  public static Queries read(Path file) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return parse(in, file.toString());
    }
  }

  /**
   * Parses JSON lines.
   *
   * @param source names the input in error messages
   * @throws ConfigException on a line that is not a JSON object with {@code _id} and {@code text}
   */
  public static Queries parse(Reader reader, String source) throws IOException {
    BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
    Map<String, String> textById = new LinkedHashMap<>();
    String line;
    int lineNo = 0;
    while ((line = in.readLine()) != null) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (JsonProcessingException e) {
        throw new ConfigException(source + ":" + lineNo + ": not JSON: " + e.getOriginalMessage());
      }
      JsonNode id = node.get("_id");
      JsonNode text = node.get("text");
      if (!node.isObject() || id == null || id.isNull() || text == null || !text.isTextual()) {
        throw new ConfigException(source + ":" + lineNo + ": expected an object with \"_id\" and \"text\"");
      }
      // Some BEIR sets write numeric ids; qrels hold them as text either way.
      textById.put(id.asText(), text.asText());
    }
    return new Queries(Collections.unmodifiableMap(textById));
  }

  /** Query ids in file order. */
  public Set<String> ids() {
    return textById.keySet();
  }

  /** The query text, or {@code null} for an unknown id. */
  public String text(String id) {
    return textById.get(id);
  }

  public int size() {
    return textById.size();
  }
}
