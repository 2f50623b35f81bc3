package dev.kiln.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.Locale;

/**
 * The soft-delete marker of a changelog ({@code changelog.soft-delete-field}): applications often
 * "delete" a row by setting a flag such as {@code deleted}, and Debezium's new-record-state
 * transform adds {@code __deleted: "true"}. A row whose marker is true, 1, or the text {@code true} or
 * {@code 1} (any case, surrounding blanks ignored) is removed from the snapshot instead of upserted;
 * anything else, or no marker, leaves the upsert as it is.
 */
final class SoftDelete implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String field;

  /** @param field the marker's field, or empty for none */
  SoftDelete(String field) {
    this.field = field == null ? "" : field;
  }

  boolean enabled() {
    return !field.isEmpty();
  }

  String field() {
    return field;
  }

  /** Whether {@code row} (a record, or a change event's {@code after}) is marked deleted. */
  boolean isDeleted(JsonNode row) {
    if (field.isEmpty() || row == null) {
      return false;
    }
    JsonNode v = row.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isIntegralNumber()) {
      return v.canConvertToLong() && v.longValue() == 1;
    }
    if (v.isTextual()) {
      String t = v.textValue().strip().toLowerCase(Locale.ROOT);
      return t.equals("true") || t.equals("1");
    }
    return false;
  }
}
