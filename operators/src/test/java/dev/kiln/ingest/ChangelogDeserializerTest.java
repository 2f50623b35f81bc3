package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ChangelogConfig;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.RawRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Kafka records, as the consumer hands them over, through the deserializer and the changelog parser. */
class ChangelogDeserializerTest {
  private static RawRecord deserialize(byte[] key, byte[] value) {
    List<RawRecord> out = new ArrayList<>();
    new ChangelogDeserializer().deserialize(new ConsumerRecord<>("docs", 2, 41L, key, value),
        new Collector<>() {
          @Override
          public void collect(RawRecord r) {
            out.add(r);
          }

          @Override
          public void close() {}
        });
    assertEquals(1, out.size());
    return out.get(0);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ChangelogRecordParser parser(String format) {
    ChangelogConfig changelog = new ChangelogConfig();
    changelog.format = format;
    return new ChangelogRecordParser("docs", new IngestConfig(), changelog);
  }

  @Test
  void aTombstoneWithAKeyDeletesThatKey() throws Exception {
    RawRecord raw = deserialize(utf8("doc-\"7\""), null);
    assertTrue(raw.isTombstone());
    ChangeOp op = new ChangelogRecordParser("docs", new IngestConfig()).parse(raw);
    assertEquals(ChangeOp.Kind.DELETE, op.kind());
    assertEquals("doc-\"7\"", op.id(), "the key is the id, quotes and all");
    assertEquals(2, op.partition());
    assertEquals(41L, op.offset());
    assertNull(op.document());
  }

  @Test
  void aTombstoneDeletesItsKeyWhateverTheIdField() throws Exception {
    IngestConfig config = new IngestConfig();
    config.idField = "doc_id";
    ChangeOp op = new ChangelogRecordParser("docs", config).parse(deserialize(utf8("k1"), null));
    assertEquals(ChangeOp.Kind.DELETE, op.kind());
    assertEquals("k1", op.id());
  }

  @Test
  void aDebeziumTombstoneDeletesTheIdItsKeyObjectNames() throws Exception {
    RawRecord raw = deserialize(utf8("{\"id\": 42}"), null);
    assertEquals("42", parser("debezium").parse(raw).id());
    assertEquals("42", parser("auto").parse(raw).id(), "auto reads a JSON object key as Debezium's");
    assertEquals("{\"id\": 42}", parser("kiln").parse(raw).id(), "Kiln's envelope keeps the key as it is");
    RawRecord wrapped = deserialize(utf8("{\"schema\": {\"type\": \"struct\"}, \"payload\": {\"id\": \"a-1\"}}"), null);
    assertEquals("a-1", parser("auto").parse(wrapped).id());
  }

  @Test
  void everyRecordCarriesItsKey() {
    RawRecord raw = deserialize(utf8("{\"id\": 7}"), utf8("{\"op\": \"d\", \"before\": null}"));
    assertEquals("{\"id\": 7}", raw.key());
    assertEquals(false, raw.isTombstone());
    assertNull(deserialize(new byte[] {(byte) 0xFF}, utf8("{}")).key(), "a key that is not UTF-8 is no key");
    assertNull(deserialize(null, utf8("{}")).key());
  }

  @Test
  void recordsWithNothingToActOnAreStillQuarantined() {
    ChangelogRecordParser parser = new ChangelogRecordParser("docs", new IngestConfig());
    assertEquals(QuarantineReason.EMPTY_RECORD, assertThrows(MalformedRecordException.class,
        () -> parser.parse(deserialize(null, null))).reason());
    assertEquals(QuarantineReason.EMPTY_RECORD, assertThrows(MalformedRecordException.class,
        () -> parser.parse(deserialize(utf8("k"), new byte[0]))).reason(), "an empty value is not a tombstone");
    assertEquals(QuarantineReason.INVALID_UTF8, assertThrows(MalformedRecordException.class,
        () -> parser.parse(deserialize(new byte[] {(byte) 0xFF}, null))).reason());
  }
}
