package dev.kiln.operators.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.RecordPosition;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class ChunkSerializerTest {

  static Chunk full() {
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put("tenant", "t-3");
    meta.put("lang", "ünïcödé ✓");
    return new Chunk("d1#2", "d1", 2, "Title", "some text " + "x".repeat(70_000), 5, 70_015, 17, meta,
        "A > B", "ck", "d1#p0", true, "zh", new float[] {0.5f, -0.25f, Float.NaN}, "fp",
        new RecordPosition("s3://bucket/corpus/part-0001.parquet", 1L << 40));
  }

  static <T> byte[] bytes(TypeSerializer<T> s, T value) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    s.serialize(value, out);
    return out.getCopyOfBuffer();
  }

  static <T> T roundTrip(TypeSerializer<T> s, T value) throws IOException {
    byte[] b = bytes(s, value);
    DataInputDeserializer in = new DataInputDeserializer(b);
    T back = s.deserialize(in);
    assertEquals(0, in.available(), "every byte written is read back");
    return back;
  }

  /** Component by component, arrays by content (a record's equals compares arrays by identity). */
  static void assertSameChunk(Chunk expected, Chunk actual) throws Exception {
    for (RecordComponent c : Chunk.class.getRecordComponents()) {
      Object e = c.getAccessor().invoke(expected);
      Object a = c.getAccessor().invoke(actual);
      if (e instanceof float[] fe) {
        assertArrayEquals(fe, (float[]) a, c.getName());
      } else {
        assertEquals(e, a, c.getName());
      }
    }
  }

  @Test
  void everyComponentOfAChunkSurvivesTheRoundTrip() throws Exception {
    Chunk c = full();
    assertSameChunk(c, roundTrip(ChunkSerializer.INSTANCE, c));
  }

  @Test
  void absentParentVectorMetadataAndSourceStayAbsent() throws Exception {
    Chunk c = new Chunk("d#0", "d", 0, null, "", 0, 0, 0, null, null, null, null, false, null, null, null, null);
    Chunk back = roundTrip(ChunkSerializer.INSTANCE, c);
    assertSameChunk(c, back);
    assertNull(back.vector());
    assertNull(back.metadata());
    assertNull(back.source());
    assertNull(back.parentId());
  }

  /**
   * Guards the layout against a component added to {@link Chunk} and not to {@link ChunkFields}: a
   * chunk that differs from another in any one component must serialize to other bytes.
   */
  @Test
  void aChunkDifferingInAnyOneComponentSerializesDifferently() throws Exception {
    Chunk base = full();
    RecordComponent[] components = Chunk.class.getRecordComponents();
    Class<?>[] types = Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
    Constructor<Chunk> canonical = Chunk.class.getDeclaredConstructor(types);
    byte[] baseBytes = bytes(ChunkSerializer.INSTANCE, base);
    for (int i = 0; i < components.length; i++) {
      Object[] args = new Object[components.length];
      for (int j = 0; j < components.length; j++) {
        args[j] = components[j].getAccessor().invoke(base);
      }
      args[i] = other(components[i].getType(), args[i]);
      Chunk changed = canonical.newInstance(args);
      assertFalse(Arrays.equals(baseBytes, bytes(ChunkSerializer.INSTANCE, changed)),
          "component " + components[i].getName() + " is not serialized");
      assertSameChunk(changed, roundTrip(ChunkSerializer.INSTANCE, changed));
    }
  }

  private static Object other(Class<?> type, Object value) {
    if (type == String.class) {
      return value + "'";
    } else if (type == int.class) {
      return (Integer) value + 1;
    } else if (type == boolean.class) {
      return !(Boolean) value;
    } else if (type == float[].class) {
      return new float[] {1f};
    } else if (type == Map.class) {
      return Map.of("k", "v");
    } else if (type == RecordPosition.class) {
      return new RecordPosition("file:/other", 3);
    }
    throw new AssertionError("no other value for a component of type " + type + ": teach this test");
  }

  @Test
  void anEmbeddedChunkKeepsItsChunkAndItsVector() throws Exception {
    EmbeddedChunk e = new EmbeddedChunk(full(), new float[] {1f, 2f, 3f});
    EmbeddedChunk back = roundTrip(EmbeddedChunkSerializer.INSTANCE, e);
    assertSameChunk(e.chunk(), back.chunk());
    assertArrayEquals(e.vector(), back.vector());
    EmbeddedChunk noVector = roundTrip(EmbeddedChunkSerializer.INSTANCE, new EmbeddedChunk(full(), null));
    assertNull(noVector.vector());
  }

  @Test
  void theTypeInfosHandOutTheseSerializers() {
    SerializerConfigImpl config = new SerializerConfigImpl();
    assertSame(ChunkSerializer.INSTANCE, KilnTypeInfo.CHUNK.createSerializer(config));
    assertSame(EmbeddedChunkSerializer.INSTANCE, KilnTypeInfo.EMBEDDED_CHUNK.createSerializer(config));
    assertEquals(ShardChangeSerializer.class, KilnTypeInfo.SHARD_CHANGE.createSerializer(config).getClass());
  }
}
