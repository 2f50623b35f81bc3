package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.config.IngestConfig;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import org.junit.jupiter.api.Test;

class ChangelogRecordParserTest {
  final ChangelogRecordParser parser = new ChangelogRecordParser("docs", new IngestConfig());

  static RawRecord record(int partition, long offset, String json) {
    return RawRecord.of(ChangelogRecordParser.sourceUri("docs", partition), offset, InputFormat.JSONL, json);
  }

  String reasonOf(String json) {
    return assertThrows(MalformedRecordException.class, () -> parser.parse(record(0, 0, json))).reason();
  }

  @Test
  void upsertCarriesTheDocumentAndItsPosition() throws Exception {
    ChangeOp op = parser.parse(record(3, 17,
        "{\"op\": \"upsert\", \"id\": \"d1\", \"title\": \"T\", \"text\": \"body\", \"tenant\": \"acme\"}"));
    assertEquals(ChangeOp.Kind.UPSERT, op.kind());
    assertEquals("d1", op.id());
    assertEquals(3, op.partition());
    assertEquals(17, op.offset());
    assertEquals("body", op.document().text());
    assertEquals("acme", op.document().metadata().get("tenant"));
  }

  @Test
  void deleteNeedsOnlyTheId() throws Exception {
    ChangeOp op = parser.parse(record(0, 5, "{\"op\": \"DELETE\", \"id\": 42}"));
    assertEquals(ChangeOp.Kind.DELETE, op.kind());
    assertEquals("42", op.id());
    assertNull(op.document());
  }

  @Test
  void badRecordsHaveStableReasons() {
    assertEquals(QuarantineReason.MALFORMED_JSON, reasonOf("{\"op\": "));
    assertEquals(QuarantineReason.NOT_AN_OBJECT, reasonOf("[1, 2]"));
    assertEquals(QuarantineReason.UNKNOWN_OP, reasonOf("{\"id\": \"d\", \"text\": \"x\"}"));
    assertEquals(QuarantineReason.UNKNOWN_OP, reasonOf("{\"op\": \"merge\", \"id\": \"d\"}"));
    assertEquals(QuarantineReason.MISSING_ID, reasonOf("{\"op\": \"delete\"}"));
    assertEquals(QuarantineReason.MISSING_ID, reasonOf("{\"op\": \"upsert\", \"text\": \"x\"}"));
    assertEquals(QuarantineReason.EMPTY_TEXT, reasonOf("{\"op\": \"upsert\", \"id\": \"d\", \"title\": \"t\", \"text\": \"\"}"));
    RawRecord tombstone = RawRecord.undecodable(ChangelogRecordParser.sourceUri("docs", 0), 9, InputFormat.JSONL,
        QuarantineReason.EMPTY_RECORD);
    assertEquals(QuarantineReason.EMPTY_RECORD,
        assertThrows(MalformedRecordException.class, () -> parser.parse(tombstone)).reason());
  }
}
