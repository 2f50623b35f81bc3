package dev.kiln.ingest;

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
 * Kafka records to raw records, one per Kafka record, never failing: a value that is missing or not
 * UTF-8 becomes an undecodable record that the parse stage quarantines, so one bad record cannot stop
 * the source. The source URI names the partition, the offset is the Kafka offset.
 */
public final class ChangelogDeserializer implements KafkaRecordDeserializationSchema<RawRecord> {
  private static final long serialVersionUID = 1L;

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
    String uri = ChangelogRecordParser.sourceUri(record.topic(), record.partition());
    byte[] value = record.value();
    if (value == null || value.length == 0) {
      out.collect(RawRecord.undecodable(uri, record.offset(), InputFormat.JSONL, QuarantineReason.EMPTY_RECORD));
      return;
    }
    try {
      String text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(value)).toString();
      out.collect(RawRecord.of(uri, record.offset(), InputFormat.JSONL, text).withSource(value.length, record.timestamp()));
    } catch (CharacterCodingException e) {
      out.collect(new RawRecord(uri, record.offset(), InputFormat.JSONL, null, QuarantineReason.INVALID_UTF8,
          value.length, record.timestamp()));
    }
  }

  @Override
  public TypeInformation<RawRecord> getProducedType() {
    return TypeInformation.of(RawRecord.class);
  }
}
