package dev.kiln.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Kafka records to raw records, one per Kafka record, never failing: a value that is empty or not
 * UTF-8 becomes an undecodable record that the parse stage quarantines, so one bad record cannot stop
 * the source. A null value under a key is a compaction tombstone, Kafka's way of saying the key is
 * gone: it becomes the delete op of the key as id. The source URI names the partition, the offset is
 * the Kafka offset.
 */
public final class ChangelogDeserializer implements KafkaRecordDeserializationSchema<RawRecord> {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String idField;

  /** @param idField the field a delete op names its id in ({@code ingest.id-field}) */
  public ChangelogDeserializer(String idField) {
    this.idField = idField;
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
    String uri = ChangelogRecordParser.sourceUri(record.topic(), record.partition());
    byte[] value = record.value();
    if (value == null && record.key() != null && record.key().length > 0) {
      out.collect(tombstone(uri, record));
      return;
    }
    if (value == null || value.length == 0) {
      out.collect(RawRecord.undecodable(uri, record.offset(), InputFormat.JSONL, QuarantineReason.EMPTY_RECORD));
      return;
    }
    try {
      String text = decode(value);
      out.collect(RawRecord.of(uri, record.offset(), InputFormat.JSONL, text).withSource(value.length, record.timestamp()));
    } catch (CharacterCodingException e) {
      out.collect(new RawRecord(uri, record.offset(), InputFormat.JSONL, null, QuarantineReason.INVALID_UTF8,
          value.length, record.timestamp()));
    }
  }

  /** The explicit delete op a tombstone means; a key that is not UTF-8 is quarantined like a bad value. */
  private RawRecord tombstone(String uri, ConsumerRecord<byte[], byte[]> record) {
    byte[] key = record.key();
    try {
      String id = decode(key);
      ObjectNode op = JSON.createObjectNode().put(ChangelogRecordParser.OP_FIELD, "delete").put(idField, id);
      return RawRecord.of(uri, record.offset(), InputFormat.JSONL, op.toString()).withSource(key.length, record.timestamp());
    } catch (CharacterCodingException e) {
      return new RawRecord(uri, record.offset(), InputFormat.JSONL, null, QuarantineReason.INVALID_UTF8,
          key.length, record.timestamp());
    }
  }

  private static String decode(byte[] bytes) throws CharacterCodingException {
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes)).toString();
  }

  @Override
  public TypeInformation<RawRecord> getProducedType() {
    return TypeInformation.of(RawRecord.class);
  }
}
