package dev.kiln.operators.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.RecordPosition;
import dev.kiln.model.ShardChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.types.StringValue;
import org.junit.jupiter.api.Test;

class ShardChangeSerializerTest {

  @Test
  void everyKindOfChangeSurvivesTheRoundTrip() throws Exception {
    ShardChangeSerializer s = new ShardChangeSerializer();
    EmbeddedChunk chunk = new EmbeddedChunk(ChunkSerializerTest.full(), new float[] {0.1f, 0.2f});
    ShardChange add = ShardChange.add(chunk);
    ShardChange back = ChunkSerializerTest.roundTrip(s, add);
    assertEquals(ShardChange.Kind.ADD, back.kind());
    assertEquals("d1", back.docId());
    ChunkSerializerTest.assertSameChunk(chunk.chunk(), back.chunk().chunk());
    assertArrayEquals(chunk.vector(), back.chunk().vector());
    assertNull(back.unchangedAt());

    ShardChange keep = ShardChange.keep("doc-7", new RecordPosition("file:/c/part-0003.parquet", 12345));
    assertEquals(keep, ChunkSerializerTest.roundTrip(s, keep));
    assertEquals(ShardChange.remove("gone", true), ChunkSerializerTest.roundTrip(s, ShardChange.remove("gone", true)));
    assertEquals(ShardChange.remove("upd", false), ChunkSerializerTest.roundTrip(s, ShardChange.remove("upd", false)));
  }

  /**
   * The remembered URI is a cache, not state the bytes depend on: keeps of several files (one of the
   * same length, one not ASCII) interleaved in one stream, read back by another serializer instance,
   * come back with their own URIs.
   */
  @Test
  void keepsOfInterleavedFilesKeepTheirOwnUris() throws Exception {
    String[] uris = {"file:/c/part-0001.parquet", "file:/c/part-0002.parquet", "s3://b/ünï/часть.jsonl", ""};
    List<ShardChange> sent = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      sent.add(ShardChange.keep("d" + i, new RecordPosition(uris[(i / 3 + i % 2) % uris.length], i)));
    }
    ShardChangeSerializer writer = new ShardChangeSerializer();
    DataOutputSerializer out = new DataOutputSerializer(64);
    for (ShardChange c : sent) {
      writer.serialize(c, out);
    }
    ShardChangeSerializer reader = (ShardChangeSerializer) writer.duplicate();
    assertNotSame(writer, reader);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    for (ShardChange c : sent) {
      assertEquals(c, reader.deserialize(in));
    }
    assertEquals(0, in.available());
  }

  @Test
  void aNegativeUriLengthIsReportedAsCorruption() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(16);
    out.writeByte(ShardChange.Kind.KEEP.ordinal());
    StringValue.writeString("d", out);
    out.writeInt(-5);
    IOException e = assertThrows(IOException.class,
        () -> new ShardChangeSerializer().deserialize(new DataInputDeserializer(out.getCopyOfBuffer())));
    assertEquals("corrupt shard change: URI length -5", e.getMessage());
  }
}
