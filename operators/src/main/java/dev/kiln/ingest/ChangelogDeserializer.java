package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import dev.kiln.operators.types.KilnTypeInfo;
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
 * gone ({@link RawRecord#isTombstone()}): the parser turns it into the delete of the key's id. Every
 * record carries its key as text when it is UTF-8 (Debezium envelopes take the id from it). The
 * source URI names the partition, the offset is the Kafka offset.
 */
public final class ChangelogDeserializer implements KafkaRecordDeserializationSchema<RawRecord> {
  private static final long serialVersionUID = 1L;

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
    String uri = ChangelogRecordParser.sourceUri(record.topic(), record.partition());
    byte[] value = record.value();
    byte[] keyBytes = record.key();
    String key = keyBytes == null || keyBytes.length == 0 ? null : decodeOrNull(keyBytes);
    if (value == null && keyBytes != null && keyBytes.length > 0) {
      out.collect(key == null
          // A key that is not UTF-8 names no id: quarantined like a bad value.
          ? new RawRecord(uri, record.offset(), InputFormat.JSONL, null, QuarantineReason.INVALID_UTF8,
              keyBytes.length, record.timestamp())
          : RawRecord.tombstone(uri, record.offset(), key, keyBytes.length, record.timestamp()));
      return;
    }
    if (value == null || value.length == 0) {
      out.collect(RawRecord.undecodable(uri, record.offset(), InputFormat.JSONL, QuarantineReason.EMPTY_RECORD)
          .withKey(key));
      return;
    }
    try {
      String text = decode(value);
      out.collect(RawRecord.of(uri, record.offset(), InputFormat.JSONL, text)
          .withSource(value.length, record.timestamp()).withKey(key));
    } catch (CharacterCodingException e) {
      out.collect(new RawRecord(uri, record.offset(), InputFormat.JSONL, null, QuarantineReason.INVALID_UTF8,
          value.length, record.timestamp(), key));
    }
  }

  private static String decodeOrNull(byte[] bytes) {
    try {
      return decode(bytes);
    } catch (CharacterCodingException e) {
      return null;
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
    return KilnTypeInfo.RAW_RECORD;
  }
}
