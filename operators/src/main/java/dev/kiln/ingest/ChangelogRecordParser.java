package dev.kiln.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import java.io.Serializable;
import java.util.List;
import java.util.Locale;

/**
 * Decodes Kafka changelog records: a JSON object with {@code "op": "upsert"|"delete"}, the document
 * id ({@code ingest.id-field}, {@code "id"} also works) and, for an upsert, the document's fields as
 * in a JSONL corpus (title, text, metadata). A record is read from {@code kafka://<topic>/<partition>}
 * at its offset; anything unusable is a {@link MalformedRecordException} with a stable reason.
 */
public final class ChangelogRecordParser implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String OP_FIELD = "op";

  private final String root;
  private final IngestConfig config;
  private final RecordParser documents;

  public ChangelogRecordParser(String topic, IngestConfig config) {
    this.root = sourceRoot(topic);
    this.config = config;
    this.documents = new RecordParser(List.of(root), config);
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
    if (raw.problem() != null || raw.payload().length() > config.maxRecordBytes) {
      documents.parse(raw); // throws with the reason the file formats use
    }
    int partition = partitionOf(raw.sourceUri());
    JsonNode node = RecordParser.readObject(raw.payload());
    JsonNode op = node.get(OP_FIELD);
    String kind = op != null && op.isTextual() ? op.asText().toLowerCase(Locale.ROOT) : "";
    switch (kind) {
      case "upsert" -> {
        Document doc = documents.parse(raw);
        if (doc.text().isBlank()) {
          throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, "upsert of '" + doc.id() + "' with empty text");
        }
        return ChangeOp.upsert(doc, partition, raw.offset());
      }
      case "delete" -> {
        JsonNode id = node.get(config.idField);
        if (id == null && config.idField.equals("_id")) {
          id = node.get("id");
        }
        if (id == null || !id.isValueNode() || id.isNull() || id.asText().isBlank()) {
          throw new MalformedRecordException(QuarantineReason.MISSING_ID, "delete without " + config.idField);
        }
        return ChangeOp.delete(id.asText(), partition, raw.offset());
      }
      default -> throw new MalformedRecordException(QuarantineReason.UNKNOWN_OP,
          op == null ? "missing \"op\" (upsert or delete)" : "unknown op " + op + ": expected upsert or delete");
    }
  }

  static int partitionOf(String uri) {
    return Integer.parseInt(uri.substring(uri.lastIndexOf('/') + 1));
  }
}
