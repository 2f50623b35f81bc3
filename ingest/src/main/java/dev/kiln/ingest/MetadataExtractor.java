package dev.kiln.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.RawRecord;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metadata a document carries to every chunk, as filterable keyword fields. Sources, later ones
 * winning: the file ({@code source_uri}, {@code modified}), named groups of the configured path
 * patterns, configured top-level record fields ({@code tenant}, {@code doc_type}, {@code version},
 * {@code language} by default), and the record's own metadata object.
 */
final class MetadataExtractor implements Serializable {
  private static final long serialVersionUID = 1L;

  static final String SOURCE_URI = DocumentFingerprint.SOURCE_URI;
  static final String MODIFIED = DocumentFingerprint.MODIFIED;

  private final IngestConfig config;
  private transient List<Pattern> patterns;
  // The last file's entries: records arrive file by file (a Parquet file holds a hundred thousand), and
  // formatting its time and matching its path per record showed in a rebuild's profile. An extractor
  // belongs to one parse operator, so one thread.
  private transient long lastModified;
  private transient String lastModifiedText;
  private transient String lastPath;
  private transient List<String[]> lastPathEntries;

  MetadataExtractor(IngestConfig config) {
    this.config = config;
  }

  /** Adds the file's and the path patterns' entries. */
  void addSource(RawRecord raw, String relativePath, Map<String, String> out) {
    out.put(SOURCE_URI, raw.sourceUri());
    if (raw.modified() > 0) {
      if (raw.modified() != lastModified || lastModifiedText == null) {
        lastModifiedText = Instant.ofEpochMilli(raw.modified()).toString();
        lastModified = raw.modified();
      }
      out.put(MODIFIED, lastModifiedText);
    }
    if (!relativePath.equals(lastPath)) {
      lastPathEntries = pathEntries(relativePath);
      lastPath = relativePath;
    }
    for (String[] e : lastPathEntries) {
      out.put(e[0], e[1]);
    }
  }

  /** The named groups the path patterns match in {@code relativePath}, in pattern order. */
  private List<String[]> pathEntries(String relativePath) {
    List<String[]> entries = new ArrayList<>();
    for (Pattern p : patterns()) {
      Matcher m = p.matcher(relativePath);
      if (m.find()) {
        for (String group : p.namedGroups().keySet()) {
          String v = m.group(group);
          if (v != null && !v.isEmpty()) {
            entries.add(new String[] {group, v});
          }
        }
      }
    }
    return entries;
  }

  /** Adds the configured top-level fields and the scalar entries of the record's metadata object. */
  void addRecord(JsonNode node, Map<String, String> out) {
    for (Map.Entry<String, String> e : config.metadataFields.entrySet()) {
      JsonNode v = node.get(e.getValue());
      if (v != null && v.isValueNode() && !v.isNull()) {
        out.put(e.getKey(), v.asText());
      }
    }
    JsonNode meta = node.get(config.metadataField);
    if (meta != null && meta.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = meta.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isValueNode() && !e.getValue().isNull()) {
          out.put(e.getKey(), e.getValue().asText());
        }
      }
    }
  }

  private List<Pattern> patterns() {
    if (patterns == null) {
      List<Pattern> list = new ArrayList<>();
      for (String p : config.pathPatterns) {
        list.add(Pattern.compile(p));
      }
      patterns = list;
    }
    return patterns;
  }
}
