package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
  private static RawRecord deserialize(String idField, byte[] key, byte[] value) {
    List<RawRecord> out = new ArrayList<>();
    new ChangelogDeserializer(idField).deserialize(new ConsumerRecord<>("docs", 2, 41L, key, value),
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

  @Test
  void aTombstoneWithAKeyDeletesThatKey() throws Exception {
    RawRecord raw = deserialize("_id", utf8("doc-\"7\""), null);
    ChangeOp op = new ChangelogRecordParser("docs", new IngestConfig()).parse(raw);
    assertEquals(ChangeOp.Kind.DELETE, op.kind());
    assertEquals("doc-\"7\"", op.id(), "the key is the id, quotes and all");
    assertEquals(2, op.partition());
    assertEquals(41L, op.offset());
    assertNull(op.document());
  }

  @Test
  void aTombstoneUsesTheConfiguredIdField() throws Exception {
    IngestConfig config = new IngestConfig();
    config.idField = "doc_id";
    ChangeOp op = new ChangelogRecordParser("docs", config).parse(deserialize("doc_id", utf8("k1"), null));
    assertEquals(ChangeOp.Kind.DELETE, op.kind());
    assertEquals("k1", op.id());
  }

  @Test
  void recordsWithNothingToActOnAreStillQuarantined() {
    ChangelogRecordParser parser = new ChangelogRecordParser("docs", new IngestConfig());
    assertEquals(QuarantineReason.EMPTY_RECORD, assertThrows(MalformedRecordException.class,
        () -> parser.parse(deserialize("_id", null, null))).reason());
    assertEquals(QuarantineReason.EMPTY_RECORD, assertThrows(MalformedRecordException.class,
        () -> parser.parse(deserialize("_id", utf8("k"), new byte[0]))).reason(), "an empty value is not a tombstone");
    assertEquals(QuarantineReason.INVALID_UTF8, assertThrows(MalformedRecordException.class,
        () -> parser.parse(deserialize("_id", new byte[] {(byte) 0xFF}, null))).reason());
  }
}
