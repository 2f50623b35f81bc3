package dev.kiln.operators.types;

import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.RawRecord;
import dev.kiln.model.ShardChange;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The type of a record that a build ships between its stages in bulk (raw records, chunks, embedded
 * chunks, shard changes), declared where the stream is made so that Flink writes it with Kiln's serializer instead of
 * its reflective POJO serializer: a rebuild of a million chunks sends a million shard changes to the
 * writers, and the POJO serializer's nested, null-flagged fields were most of their bytes and one of
 * the largest methods the JIT compiled in the writers (see {@link ShardChangeSerializer}).
 */
public final class KilnTypeInfo<T> extends TypeInformation<T> {
  private static final long serialVersionUID = 1L;

  /** What every corpus and changelog source declares ({@link RawRecordSerializer}). */
  public static final KilnTypeInfo<RawRecord> RAW_RECORD =
      new KilnTypeInfo<>(RawRecord.class, RawRecordSerializer.INSTANCE);
  public static final KilnTypeInfo<Chunk> CHUNK = new KilnTypeInfo<>(Chunk.class, ChunkSerializer.INSTANCE);
  public static final KilnTypeInfo<EmbeddedChunk> EMBEDDED_CHUNK =
      new KilnTypeInfo<>(EmbeddedChunk.class, EmbeddedChunkSerializer.INSTANCE);
  public static final KilnTypeInfo<ShardChange> SHARD_CHANGE =
      new KilnTypeInfo<>(ShardChange.class, new ShardChangeSerializer());

  private final Class<T> type;
  private final TypeSerializer<T> serializer;

  private KilnTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
    this.type = type;
    this.serializer = serializer;
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer.duplicate();
  }

  @Override
  public String toString() {
    return "Kiln<" + type.getSimpleName() + ">";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KilnTypeInfo<?> other && other.type == type;
  }

  @Override
  public int hashCode() {
    return type.hashCode();
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof KilnTypeInfo<?>;
  }
}
