package dev.kiln.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import java.io.Serializable;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Debezium change events as changelog ops. An event is {@code {"before": row, "after": row, "op":
 * "c"|"u"|"r"|"d", ...}}, bare or wrapped by Kafka Connect's JSON converter as {@code {"schema": …,
 * "payload": event}}. Creates, updates and snapshot reads upsert the {@code after} row (title, text and
 * metadata from the same {@code ingest.*} fields as a JSON-lines record); deletes remove the id; a row
 * marked by the soft-delete field is removed too.
 *
 * <p>The document id comes from the Kafka record key, which Debezium sets to the row's primary key:
 * a plain string is the id; a JSON key object (bare or wrapped in {@code schema}/{@code payload}) gives
 * the value of its {@code ingest.id-field} (or {@code id}) field, else of its only field, else — a
 * composite key — the key object's compact JSON. A record without a key takes the row's
 * {@code ingest.id-field}. With {@code changelog.id-field} set, the id is that field of the row
 * instead ({@code after}; {@code before} for a delete), and a tombstone must carry it in its key.
 */
final class DebeziumEnvelope implements Serializable {
  private static final long serialVersionUID = 1L;
  // A key is JSON only if all of it is: "{\"id\": 1} junk" is a plain string key.
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final Set<String> OPS = Set.of("c", "u", "r", "d");

  private final RecordParser rows;
  private final String keyField;
  private final String rowIdField;
  private final SoftDelete softDelete;

  /**
   * @param rows turns a row into a document with the ingest field mapping
   * @param keyField the field a key object names the id in ({@code ingest.id-field})
   * @param rowIdField {@code changelog.id-field}: the row field holding the id, or empty for the key
   */
  DebeziumEnvelope(RecordParser rows, String keyField, String rowIdField, SoftDelete softDelete) {
    this.rows = rows;
    this.keyField = keyField;
    this.rowIdField = rowIdField == null ? "" : rowIdField;
    this.softDelete = softDelete;
  }

  /** Whether a record that is not a Kiln op looks like a Debezium event ({@code changelog.format: auto}). */
  static boolean looksLike(JsonNode node) {
    if (node.has("before") || node.has("after")) {
      return true;
    }
    JsonNode payload = node.get("payload");
    if (payload != null && payload.isObject() && !node.has("op")) {
      return true;
    }
    JsonNode op = node.get(ChangelogRecordParser.OP_FIELD);
    return op != null && op.isTextual() && OPS.contains(op.textValue());
  }

  /** The op of one event read at {@code partition}/{@code raw.offset()}. */
  ChangeOp parse(RawRecord raw, JsonNode node, int partition) throws MalformedRecordException {
    JsonNode event = node;
    if (!node.has(ChangelogRecordParser.OP_FIELD) && node.has("payload")) {
      event = node.get("payload");
      if (!event.isObject()) {
        throw new MalformedRecordException(QuarantineReason.NOT_AN_OBJECT,
            "Debezium \"payload\" is " + event.getNodeType().name().toLowerCase(Locale.ROOT)
                + ", not a change event");
      }
    }
    JsonNode op = event.get(ChangelogRecordParser.OP_FIELD);
    if (op == null || op.isNull()) {
      throw new MalformedRecordException(QuarantineReason.MISSING_OP,
          "Debezium event without \"op\" (c, u, r or d)");
    }
    String kind = op.isTextual() ? op.textValue() : "";
    switch (kind) {
      case "c", "u", "r" -> {
        JsonNode after = event.get("after");
        if (after == null || !after.isObject()) {
          throw new MalformedRecordException(QuarantineReason.MISSING_AFTER,
              "Debezium op '" + kind + "' without an \"after\" row" + (after == null ? "" : " (it is " + after + ")"));
        }
        String id = id(raw, after);
        if (softDelete.isDeleted(after)) {
          return ChangeOp.delete(id, partition, raw.offset());
        }
        Document doc = rows.parseRow(raw, after, id);
        if (doc.text().isBlank()) {
          throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, "upsert of '" + id + "' with empty text");
        }
        return ChangeOp.upsert(doc, partition, raw.offset());
      }
      case "d" -> {
        JsonNode before = event.get("before");
        return ChangeOp.delete(id(raw, before != null && before.isObject() ? before : null), partition,
            raw.offset());
      }
      default -> throw new MalformedRecordException(QuarantineReason.UNKNOWN_OP, "unknown Debezium op " + op
          + (kind.equals("t") ? " (truncate: remove the documents with a delete per row or rebuild)" : "")
          + ": expected c, u, r or d");
    }
  }

  /** The id of a tombstone: the delete of what its key names. */
  String tombstoneId(String key) throws MalformedRecordException {
    if (!rowIdField.isEmpty()) {
      JsonNode object = keyObject(key);
      JsonNode v = object == null ? null : object.get(rowIdField);
      if (!usable(v)) {
        throw new MalformedRecordException(QuarantineReason.MISSING_ID, "tombstone key " + abbreviate(key)
            + " has no " + rowIdField + " (changelog.id-field); the delete event before it already removed the row:"
            + " set the connector's tombstones.on.delete=false to drop such tombstones");
      }
      return v.asText();
    }
    return idFromKey(key);
  }

  private String id(RawRecord raw, JsonNode row) throws MalformedRecordException {
    if (!rowIdField.isEmpty()) {
      JsonNode v = row == null ? null : row.get(rowIdField);
      if (!usable(v)) {
        throw new MalformedRecordException(QuarantineReason.MISSING_ID,
            "Debezium row without " + rowIdField + " (changelog.id-field)");
      }
      return v.asText();
    }
    if (raw.key() != null) {
      return idFromKey(raw.key());
    }
    String id = row == null ? null : rows.idOrNull(row);
    if (id == null) {
      throw new MalformedRecordException(QuarantineReason.MISSING_ID, "Debezium event without a record key and "
          + (row == null ? "without a row" : "a row without " + keyField + " (ingest.id-field)"));
    }
    return id;
  }

  /** The id a Kafka record key names (see the class comment). */
  String idFromKey(String key) throws MalformedRecordException {
    JsonNode parsed = parse(key);
    if (parsed == null || !(parsed.isObject() || parsed.isTextual())) {
      // A plain string key (or a number, kept exactly as written).
      if (key.isBlank()) {
        throw new MalformedRecordException(QuarantineReason.MISSING_ID, "blank record key");
      }
      return key;
    }
    if (parsed.isTextual()) {
      return nonBlank(parsed.textValue(), key);
    }
    JsonNode object = unwrapKey(parsed);
    if (!object.isObject()) {
      return nonBlank(object.isValueNode() && !object.isNull() ? object.asText() : "", key);
    }
    JsonNode named = object.get(keyField);
    if (named == null && keyField.equals("_id")) {
      named = object.get("id");
    }
    if (usable(named)) {
      return named.asText();
    }
    if (object.size() == 1) {
      JsonNode only = object.elements().next();
      if (usable(only)) {
        return only.asText();
      }
    }
    if (object.size() > 1 && allScalars(object)) {
      return object.toString();
    }
    throw new MalformedRecordException(QuarantineReason.MISSING_ID, "record key " + abbreviate(key)
        + " names no id: expected a string or an object of scalar fields");
  }

  private static JsonNode keyObject(String key) {
    JsonNode parsed = parse(key);
    if (parsed == null || !parsed.isObject()) {
      return null;
    }
    JsonNode object = unwrapKey(parsed);
    return object.isObject() ? object : null;
  }

  /** Kafka Connect's JSON converter with schemas writes {@code {"schema": …, "payload": key}}. */
  private static JsonNode unwrapKey(JsonNode key) {
    return key.size() == 2 && key.has("schema") && key.has("payload") ? key.get("payload") : key;
  }

  private static boolean allScalars(JsonNode object) {
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      if (!it.next().getValue().isValueNode()) {
        return false;
      }
    }
    return true;
  }

  private static JsonNode parse(String key) {
    try {
      return JSON.readTree(key);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private static boolean usable(JsonNode v) {
    return v != null && v.isValueNode() && !v.isNull() && !v.asText().isBlank();
  }

  private static String nonBlank(String id, String key) throws MalformedRecordException {
    if (id.isBlank()) {
      throw new MalformedRecordException(QuarantineReason.MISSING_ID, "record key " + abbreviate(key) + " is blank");
    }
    return id;
  }

  private static String abbreviate(String key) {
    return key.length() <= 120 ? key : key.substring(0, 120) + "…";
  }
}
