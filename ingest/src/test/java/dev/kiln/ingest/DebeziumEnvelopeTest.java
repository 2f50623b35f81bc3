package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.config.ChangelogConfig;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Debezium change events through the changelog parser: every op, the id rules, soft deletes, bad envelopes. */
class DebeziumEnvelopeTest {
  static final String ROW = "{\"id\": 42, \"title\": \"Tides\", \"text\": \"Tides rise twice a day.\", \"tenant\": \"geo\","
      + " \"metadata\": {\"version\": 3}}";

  static ChangelogRecordParser parser(String format, String idField, String softDelete) {
    ChangelogConfig c = new ChangelogConfig();
    c.format = format;
    c.idField = idField;
    c.softDeleteField = softDelete;
    return new ChangelogRecordParser("db.docs", new IngestConfig(), c);
  }

  static final ChangelogRecordParser DEBEZIUM = parser("debezium", "", "deleted");
  static final ChangelogRecordParser AUTO = parser("auto", "", "deleted");

  static RawRecord record(String key, String value) {
    return RawRecord.of(ChangelogRecordParser.sourceUri("db.docs", 1), 12, InputFormat.JSONL, value).withKey(key);
  }

  static String event(String op, String before, String after) {
    return "{\"before\": " + before + ", \"after\": " + after + ", \"op\": \"" + op + "\", \"ts_ms\": 1764806400000,"
        + " \"source\": {\"connector\": \"postgresql\", \"table\": \"docs\"}}";
  }

  static String reasonOf(ChangelogRecordParser parser, String key, String value) {
    return assertThrows(MalformedRecordException.class, () -> parser.parse(record(key, value))).reason();
  }

  @Test
  void createUpdateAndSnapshotReadUpsertTheAfterRow() throws Exception {
    for (String op : List.of("c", "u", "r")) {
      ChangeOp change = DEBEZIUM.parse(record("{\"id\": 42}", event(op, op.equals("u") ? ROW : "null", ROW)));
      assertEquals(ChangeOp.Kind.UPSERT, change.kind(), op);
      assertEquals("42", change.id());
      assertEquals(1, change.partition());
      assertEquals(12, change.offset());
      assertEquals("Tides", change.document().title());
      assertEquals("Tides rise twice a day.", change.document().text());
      assertEquals("geo", change.document().metadata().get("tenant"), "ingest.metadata-fields apply to the row");
      assertEquals("3", change.document().metadata().get("version"), "so does the row's metadata object");
      assertEquals("kafka://db.docs/1", change.document().metadata().get("source_uri"));
    }
  }

  @Test
  void deleteRemovesTheKeysId() throws Exception {
    ChangeOp change = DEBEZIUM.parse(record("{\"id\": 42}", event("d", ROW, "null")));
    assertEquals(ChangeOp.Kind.DELETE, change.kind());
    assertEquals("42", change.id());
    assertNull(change.document());
    assertEquals("42", DEBEZIUM.parse(record("{\"id\": 42}", event("d", "null", "null"))).id(),
        "the key alone names a delete");
    assertEquals("42", DEBEZIUM.parse(record(null, event("d", ROW, "null"))).id(), "without a key: the before row's id");
  }

  @Test
  void theWrappedFormOfTheJsonConverterIsUnwrapped() throws Exception {
    String wrapped = "{\"schema\": {\"type\": \"struct\", \"name\": \"db.docs.Envelope\"}, \"payload\": "
        + event("c", "null", ROW) + "}";
    ChangeOp change = AUTO.parse(record("{\"schema\": {\"type\": \"struct\"}, \"payload\": {\"id\": 42}}", wrapped));
    assertEquals(ChangeOp.Kind.UPSERT, change.kind());
    assertEquals("42", change.id());
    assertEquals("Tides", change.document().title());
  }

  @Test
  void theIdComesFromThePlainKeyTheKeyObjectOrTheRow() throws Exception {
    String create = event("c", "null", ROW);
    assertEquals("doc-9", DEBEZIUM.parse(record("doc-9", create)).id(), "a plain string key");
    assertEquals("doc-9", DEBEZIUM.parse(record("\"doc-9\"", create)).id(), "a JSON string key");
    assertEquals("0042", DEBEZIUM.parse(record("0042", create)).id(), "a number-like key is kept as written");
    assertEquals("a-1", DEBEZIUM.parse(record("{\"doc_key\": \"a-1\"}", create)).id(), "the only field of the key");
    assertEquals("7", DEBEZIUM.parse(record("{\"tenant\": \"x\", \"id\": 7}", create)).id(),
        "the ingest.id-field (or id) of a key with several fields");
    assertEquals("{\"tenant\":\"x\",\"n\":7}", DEBEZIUM.parse(record("{\"tenant\": \"x\", \"n\": 7}", create)).id(),
        "a composite key without an id field: its compact JSON");
    assertEquals("42", DEBEZIUM.parse(record(null, create)).id(), "no key: the row's id");
  }

  @Test
  void aConfiguredIdFieldIsReadFromTheRowNotTheKey() throws Exception {
    ChangelogRecordParser bySlug = parser("debezium", "slug", "");
    String row = "{\"id\": 42, \"slug\": \"ocean-tides\", \"title\": \"Tides\", \"text\": \"Twice a day.\"}";
    assertEquals("ocean-tides", bySlug.parse(record("{\"id\": 42}", event("u", row, row))).id());
    assertEquals("ocean-tides", bySlug.parse(record("{\"id\": 42}", event("d", row, "null"))).id(), "before on a delete");
    assertEquals(QuarantineReason.MISSING_ID, reasonOf(bySlug, "{\"id\": 42}", event("d", "null", "null")));
    assertEquals(QuarantineReason.MISSING_ID, reasonOf(bySlug, "{\"id\": 42}", event("c", "null", ROW)));
    RawRecord tombstone = RawRecord.tombstone(ChangelogRecordParser.sourceUri("db.docs", 0), 3, "{\"id\": 42}", 11, 0);
    assertEquals(QuarantineReason.MISSING_ID, assertThrows(MalformedRecordException.class,
        () -> bySlug.parse(tombstone)).reason(), "a tombstone's key does not name the slug");
    RawRecord slugged = RawRecord.tombstone(ChangelogRecordParser.sourceUri("db.docs", 0), 3,
        "{\"id\": 42, \"slug\": \"ocean-tides\"}", 11, 0);
    assertEquals("ocean-tides", bySlug.parse(slugged).id());
  }

  @Test
  void aSoftDeletedRowIsADelete() throws Exception {
    for (String marker : List.of("true", "1", "\"true\"", "\"TRUE\"", "\" 1 \"")) {
      String row = "{\"id\": 42, \"title\": \"\", \"text\": \"\", \"deleted\": " + marker + "}";
      ChangeOp change = DEBEZIUM.parse(record("{\"id\": 42}", event("u", ROW, row)));
      assertEquals(ChangeOp.Kind.DELETE, change.kind(), "deleted: " + marker);
      assertEquals("42", change.id());
    }
    for (String marker : List.of("false", "0", "2", "\"false\"", "\"yes please\"", "null", "{}")) {
      String row = "{\"id\": 42, \"title\": \"T\", \"text\": \"x\", \"deleted\": " + marker + "}";
      assertEquals(ChangeOp.Kind.UPSERT, DEBEZIUM.parse(record("{\"id\": 42}", event("u", ROW, row))).kind(),
          "deleted: " + marker);
    }
    ChangelogRecordParser noMarker = parser("debezium", "", "");
    String flagged = "{\"id\": 42, \"title\": \"T\", \"text\": \"x\", \"deleted\": true}";
    assertEquals(ChangeOp.Kind.UPSERT, noMarker.parse(record("42", event("u", ROW, flagged))).kind(),
        "no soft-delete field configured: the flag is just a field");
  }

  @Test
  void kilnUpsertsHonourTheSoftDeleteFieldToo() throws Exception {
    ChangeOp change = AUTO.parse(record("k", "{\"op\": \"upsert\", \"id\": \"d1\", \"deleted\": \"true\"}"));
    assertEquals(ChangeOp.Kind.DELETE, change.kind());
    assertEquals("d1", change.id());
  }

  @Test
  void autoKeepsKilnRecordsKilnsAndTheKilnFormatRefusesDebeziumEvents() throws Exception {
    ChangeOp kiln = AUTO.parse(record("d1", "{\"op\": \"upsert\", \"id\": \"d1\", \"title\": \"T\", \"text\": \"x\","
        + " \"after\": \"a field named after\"}"));
    assertEquals(ChangeOp.Kind.UPSERT, kiln.kind());
    assertEquals("d1", kiln.id());
    assertEquals(QuarantineReason.UNKNOWN_OP, reasonOf(parser("kiln", "", ""), "42", event("c", "null", ROW)));
    assertEquals(QuarantineReason.UNKNOWN_OP,
        reasonOf(DEBEZIUM, "d1", "{\"op\": \"upsert\", \"id\": \"d1\", \"text\": \"x\"}"),
        "the debezium format reads only Debezium ops");
  }

  @Test
  void malformedEnvelopesHaveTheirOwnReasons() {
    for (ChangelogRecordParser p : List.of(DEBEZIUM, AUTO)) {
      assertEquals(QuarantineReason.MISSING_OP, reasonOf(p, "42", "{\"before\": null, \"after\": " + ROW + "}"));
      assertEquals(QuarantineReason.MISSING_OP, reasonOf(p, "42", "{\"payload\": {\"after\": " + ROW + "}}"));
      assertEquals(QuarantineReason.UNKNOWN_OP, reasonOf(p, "42", event("x", "null", ROW)));
      assertEquals(QuarantineReason.UNKNOWN_OP, reasonOf(p, "42", event("t", "null", "null")), "truncate");
      assertEquals(QuarantineReason.MISSING_AFTER, reasonOf(p, "42", event("c", "null", "null")));
      assertEquals(QuarantineReason.MISSING_AFTER, reasonOf(p, "42", event("u", ROW, "\"not a row\"")));
      assertEquals(QuarantineReason.MISSING_AFTER, reasonOf(p, "42", "{\"op\": \"c\", \"before\": null}"));
      assertEquals(QuarantineReason.MISSING_ID, reasonOf(p, null, event("c", "null", "{\"title\": \"T\", \"text\": \"x\"}")));
      assertEquals(QuarantineReason.MISSING_ID, reasonOf(p, null, event("d", "null", "null")));
      assertEquals(QuarantineReason.MISSING_ID, reasonOf(p, "{}", event("c", "null", ROW)), "an empty key object");
      assertEquals(QuarantineReason.MISSING_ID, reasonOf(p, "{\"id\": {\"nested\": 1}}", event("c", "null", ROW)));
      assertEquals(QuarantineReason.EMPTY_TEXT,
          reasonOf(p, "42", event("c", "null", "{\"id\": 42, \"title\": \"T\", \"text\": \"\"}")));
    }
    assertEquals(QuarantineReason.NOT_AN_OBJECT, reasonOf(DEBEZIUM, "42", "{\"schema\": {}, \"payload\": null}"));
    assertEquals(QuarantineReason.MISSING_OP, reasonOf(DEBEZIUM, "42", "{\"ts_ms\": 1}"), "debezium: no op at all");
    assertEquals(QuarantineReason.MALFORMED_JSON, reasonOf(DEBEZIUM, "42", "{\"op\": "));
  }

  @Test
  void theConfiguredTitleAndTextFieldsMapTheRow() throws Exception {
    IngestConfig ingest = new IngestConfig();
    ingest.titleField = "headline";
    ingest.textField = "body";
    ingest.metadataFields = new LinkedHashMap<>(Map.of("lang", "language_code"));
    ChangelogConfig c = new ChangelogConfig();
    c.format = "debezium";
    ChangeOp change = new ChangelogRecordParser("db.docs", ingest, c).parse(record("7",
        event("c", "null", "{\"headline\": \"H\", \"body\": \"B\", \"language_code\": \"de\"}")));
    assertEquals("H", change.document().title());
    assertEquals("B", change.document().text());
    assertEquals("de", change.document().metadata().get("lang"));
  }
}
