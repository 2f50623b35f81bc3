package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import dev.kiln.operators.types.RawRecordSerializer;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** A Parquet row's text kept as UTF-8 ({@link Utf8Text}) between the job's tasks ({@link RawRecordSerializer}). */
class Utf8TextSerializationTest {
  @Test
  void aRowHoldingItTravelsBetweenTasksAsText() throws Exception {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("_id", "d1");
    row.putPOJO("text", new Utf8Text("say \"hi\" – ok".getBytes(StandardCharsets.UTF_8)));

    RawRecord raw = RawRecord.ofRow("file:/c/p.parquet", 3, InputFormat.PARQUET, row);
    RawRecordSerializer serializer = RawRecordSerializer.INSTANCE;
    DataOutputSerializer out = new DataOutputSerializer(256);
    serializer.serialize(raw, out);
    RawRecord back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    assertEquals("say \"hi\" – ok", back.row().get("text").textValue());
  }
}
