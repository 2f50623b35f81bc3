package dev.kiln.operators.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.ingest.CorpusFileFormat;
import dev.kiln.ingest.QuarantineReason;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.junit.jupiter.api.Test;

class RawRecordSerializerTest {
  private static final RawRecordSerializer SERIALIZER = RawRecordSerializer.INSTANCE;

  /** Every shape a source emits: text, a decoded row (with a NaN and nested values), a vector, a problem, a tombstone. */
  static List<RawRecord> records() {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("_id", "r1").put("text", "caf\u00e9 \ud83d\ude00").put("n", 7).put("f", Float.NaN).put("ok", true);
    row.putArray("list").add(0.5f).addNull();
    row.putObject("meta").put("lang", "en");
    return List.of(
        RawRecord.of("file:/c/a.jsonl", 12, InputFormat.JSONL, "{\"_id\":\"a\"}").withSource(40, 1700000000000L),
        RawRecord.ofRow("file:/c/p.parquet", 3, InputFormat.PARQUET, row).withSource(99, 5)
            .withVector(new float[] {0.6f, -0.8f, Float.MIN_VALUE}),
        RawRecord.undecodable("s3://b/x.md", 0, InputFormat.MARKDOWN, QuarantineReason.INVALID_UTF8),
        RawRecord.tombstone("kafka://t/0", 77, "doc-9", 0, 123),
        RawRecord.of("kafka://t/1", 78, InputFormat.JSONL, "{}").withKey("k"),
        new RawRecord("file:/c/e.parquet", 0, InputFormat.PARQUET, null, null, 0, 0, null, new float[0], null));
  }

  @Test
  void everyRecordShapeSurvivesTheWireFieldForField() throws Exception {
    for (RawRecord r : records()) {
      DataOutputSerializer out = new DataOutputSerializer(64);
      SERIALIZER.serialize(r, out);
      RawRecord back = SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
      assertEquals(r.sourceUri(), back.sourceUri());
      assertEquals(r.offset(), back.offset());
      assertEquals(r.format(), back.format());
      assertEquals(r.payload(), back.payload(), "the text, or the row rendered");
      assertEquals(r.problem(), back.problem());
      assertEquals(r.bytes(), back.bytes());
      assertEquals(r.modified(), back.modified());
      assertEquals(r.key(), back.key());
      assertEquals(r.isTombstone(), back.isTombstone());
      if (r.vector() == null) {
        assertNull(back.vector());
      } else {
        assertArrayEquals(r.vector(), back.vector());
      }
      assertEquals(r.row() == null, back.row() == null, "a row arrives as a row");
      if (r.row() != null) {
        assertTrue(Float.isNaN(back.row().get("f").floatValue()), "NaN reads back: " + back.row());
        assertEquals("caf\u00e9 \ud83d\ude00", back.row().get("text").asText());
      }
    }
  }

  @Test
  void recordsAreHandedOnWithoutACopyAndCopiedAsBytesBetweenStreams() throws Exception {
    DataOutputSerializer all = new DataOutputSerializer(256);
    for (RawRecord r : records()) {
      assertSame(r, SERIALIZER.copy(r), "immutable once emitted");
      assertSame(r, SERIALIZER.copy(r, null));
      SERIALIZER.serialize(r, all);
    }
    DataInputDeserializer in = new DataInputDeserializer(all.getCopyOfBuffer());
    DataOutputSerializer copied = new DataOutputSerializer(256);
    for (int i = 0; i < records().size(); i++) {
      SERIALIZER.copy(in, copied);
    }
    assertArrayEquals(all.getCopyOfBuffer(), copied.getCopyOfBuffer());
  }

  @Test
  void theSourcesDeclareItAndItsSnapshotRestoresIt() throws Exception {
    assertSame(SERIALIZER, new CorpusFileFormat(InputFormat.AUTO).getProducedType()
        .createSerializer(new SerializerConfigImpl()));
    assertSame(SERIALIZER, KilnTypeInfo.RAW_RECORD.createSerializer(new SerializerConfigImpl()));
    TypeSerializerSnapshot<RawRecord> snapshot = SERIALIZER.snapshotConfiguration();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TypeSerializerSnapshot.writeVersionedSnapshot(new DataOutputViewStreamWrapper(bytes), snapshot);
    TypeSerializerSnapshot<RawRecord> read = TypeSerializerSnapshot.readVersionedSnapshot(
        new DataInputViewStreamWrapper(new ByteArrayInputStream(bytes.toByteArray())),
        getClass().getClassLoader());
    assertSame(SERIALIZER, read.restoreSerializer());
  }
}
