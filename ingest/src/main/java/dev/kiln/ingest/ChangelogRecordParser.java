package dev.kiln.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.ChangelogConfig;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import java.io.Serializable;
import java.util.List;
import java.util.Locale;

/**
 * Decodes Kafka changelog records into ops. Two envelopes ({@code changelog.format}): Kiln's own, a
 * JSON object with {@code "op": "upsert"|"delete"}, the document id ({@code ingest.id-field},
 * {@code "id"} also works) and, for an upsert, the document's fields as in a JSONL corpus (title,
 * text, metadata); and Debezium change events ({@link DebeziumEnvelope}). With {@code auto} each
 * record is read as Kiln's when its op is upsert or delete, else as Debezium's when it looks like an
 * event. A tombstone deletes the id its key names. An upsert whose row carries the soft-delete marker
 * ({@code changelog.soft-delete-field}) is a delete. A record is read from
 * {@code kafka://<topic>/<partition>} at its offset; anything unusable is a
 * {@link MalformedRecordException} with a stable reason.
 */
public final class ChangelogRecordParser implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final String OP_FIELD = "op";

  private final String root;
  private final IngestConfig config;
  private final String format;
  private final RecordParser documents;
  private final SoftDelete softDelete;
  private final DebeziumEnvelope debezium;

  /** A parser of Kiln's own envelope (and Debezium's, detected per record), without a soft-delete field. */
  public ChangelogRecordParser(String topic, IngestConfig config) {
    this(topic, config, new ChangelogConfig());
  }

  public ChangelogRecordParser(String topic, IngestConfig config, ChangelogConfig changelog) {
    this.root = sourceRoot(topic);
    this.config = config;
    this.format = changelog.format;
    this.documents = new RecordParser(List.of(root), config);
    this.softDelete = new SoftDelete(changelog.softDeleteField);
    this.debezium = new DebeziumEnvelope(documents, config.idField, changelog.idField, softDelete);
  }

  /** The per-source metrics name of a topic. */
  public static String sourceRoot(String topic) {
    return "kafka://" + topic;
  }

  /** Where a record of {@code partition} was read from: its raw record's source URI. */
  public static String sourceUri(String topic, int partition) {
    return sourceRoot(topic) + "/" + partition;
  }

  public String root() {
    return root;
  }

  public ChangeOp parse(RawRecord raw) throws MalformedRecordException {
    int partition = partitionOf(raw.sourceUri());
    if (raw.isTombstone()) {
      return ChangeOp.delete(tombstoneId(raw.key()), partition, raw.offset());
    }
    if (raw.problem() != null || raw.payload().length() > config.maxRecordBytes) {
      documents.parse(raw); // throws with the reason the file formats use
    }
    JsonNode node = RecordParser.readObject(raw.payload());
    JsonNode op = node.get(OP_FIELD);
    String kind = op != null && op.isTextual() ? op.asText().toLowerCase(Locale.ROOT) : "";
    boolean kilnOp = kind.equals("upsert") || kind.equals("delete");
    if (format.equals(ChangelogConfig.FORMAT_DEBEZIUM)
        || (format.equals(ChangelogConfig.FORMAT_AUTO) && !kilnOp && DebeziumEnvelope.looksLike(node))) {
      return debezium.parse(raw, node, partition);
    }
    switch (kind) {
      case "upsert" -> {
        if (softDelete.isDeleted(node)) {
          // Before the document is parsed: a soft-deleted row need not have text any more.
          return ChangeOp.delete(requireId(node, "soft delete"), partition, raw.offset());
        }
        Document doc = documents.parse(raw);
        if (doc.text().isBlank()) {
          throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, "upsert of '" + doc.id() + "' with empty text");
        }
        return ChangeOp.upsert(doc, partition, raw.offset());
      }
      case "delete" -> {
        return ChangeOp.delete(requireId(node, "delete"), partition, raw.offset());
      }
      default -> throw new MalformedRecordException(QuarantineReason.UNKNOWN_OP,
          op == null ? "missing \"op\" (upsert or delete)" : "unknown op " + op + ": expected upsert or delete");
    }
  }

  private String requireId(JsonNode node, String what) throws MalformedRecordException {
    String id = documents.idOrNull(node);
    if (id == null) {
      throw new MalformedRecordException(QuarantineReason.MISSING_ID, what + " without " + config.idField);
    }
    return id;
  }

  /**
   * The id a tombstone deletes: Kiln's envelope takes the key as it is, Debezium's reads its key
   * object; under {@code auto} a key that is a JSON object is read as Debezium's.
   */
  private String tombstoneId(String key) throws MalformedRecordException {
    boolean debeziumKey = switch (format) {
      case ChangelogConfig.FORMAT_DEBEZIUM -> true;
      case ChangelogConfig.FORMAT_KILN -> false;
      default -> isJsonObject(key);
    };
    return debeziumKey ? debezium.tombstoneId(key) : key;
  }

  private static boolean isJsonObject(String key) {
    String t = key.strip();
    if (!t.startsWith("{")) {
      return false;
    }
    try {
      return JSON.readTree(t).isObject();
    } catch (JsonProcessingException e) {
      return false;
    }
  }

  static int partitionOf(String uri) {
    return Integer.parseInt(uri.substring(uri.lastIndexOf('/') + 1));
  }
}
