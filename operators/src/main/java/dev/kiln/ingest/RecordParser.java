package dev.kiln.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.chunk.HtmlStructure;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import java.io.Serializable;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes raw records into documents. JSON lines follow the BEIR layout ({@code _id}, {@code title},
 * {@code text}, optional {@code metadata} object of scalars); a Markdown file becomes one document
 * whose id is its path relative to the corpus root and whose title is its first heading; an HTML file
 * likewise, titled by its {@code <title>} or first {@code <h1>}.
 */
public final class RecordParser implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<String> roots;

  /** @param roots qualified corpus roots, used to turn file paths into document ids */
  public RecordParser(List<String> roots) {
    // Longest first, so a nested root wins over its parent.
    this.roots = roots.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
  }

  public Document parse(RawRecord raw) throws MalformedRecordException {
    if (raw.problem() != null) {
      throw new MalformedRecordException(raw.problem());
    }
    return switch (raw.format()) {
      case JSONL -> parseJsonLine(raw);
      case MARKDOWN -> parseMarkdown(raw);
      case HTML -> parseHtml(raw);
      default -> throw new MalformedRecordException("unsupported format " + raw.format());
    };
  }

  private Document parseJsonLine(RawRecord raw) throws MalformedRecordException {
    JsonNode node;
    try {
      node = JSON.readTree(raw.payload());
    } catch (JsonProcessingException e) {
      throw new MalformedRecordException("malformed JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new MalformedRecordException("not a JSON object");
    }
    JsonNode id = node.has("_id") ? node.get("_id") : node.get("id");
    if (id == null || !id.isValueNode() || id.asText().isBlank()) {
      throw new MalformedRecordException("missing _id");
    }
    String title = textOf(node.get("title"));
    String text = textOf(node.get("text"));
    if (title.isBlank() && text.isBlank()) {
      throw new MalformedRecordException("empty text");
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    JsonNode meta = node.get("metadata");
    if (meta != null && meta.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = meta.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isValueNode() && !e.getValue().isNull()) {
          metadata.put(e.getKey(), e.getValue().asText());
        }
      }
    }
    return new Document(id.asText(), title, text, metadata, raw.sourceUri());
  }

  private Document parseMarkdown(RawRecord raw) throws MalformedRecordException {
    String text = raw.payload();
    if (text.isBlank()) {
      throw new MalformedRecordException("empty text");
    }
    String id = relativeId(raw.sourceUri());
    return new Document(id, firstHeading(text, id), text, Map.of(), raw.sourceUri(), ContentType.MARKDOWN);
  }

  /** An HTML file stays raw (the HTML chunker reads its structure); title from title or h1. */
  private Document parseHtml(RawRecord raw) throws MalformedRecordException {
    String html = raw.payload();
    if (html.isBlank()) {
      throw new MalformedRecordException("empty text");
    }
    String id = relativeId(raw.sourceUri());
    return new Document(id, HtmlStructure.title(html, id), html, Map.of(), raw.sourceUri(), ContentType.HTML);
  }

  /** The path of a file relative to the corpus root it was found under. */
  String relativeId(String uri) {
    for (String root : roots) {
      if (uri.equals(root)) {
        return uri.substring(uri.lastIndexOf('/') + 1);
      }
      String prefix = root.endsWith("/") ? root : root + "/";
      if (uri.startsWith(prefix)) {
        return uri.substring(prefix.length());
      }
    }
    return uri.substring(uri.lastIndexOf('/') + 1);
  }

  static String firstHeading(String markdown, String fallback) {
    for (String line : markdown.split("\n", 200)) {
      String t = line.strip();
      if (t.startsWith("#")) {
        String h = t.replaceFirst("^#+", "").strip();
        if (!h.isEmpty()) {
          return h;
        }
      }
    }
    return fallback;
  }

  private static String textOf(JsonNode node) {
    return node == null || node.isNull() ? "" : node.asText();
  }
}
