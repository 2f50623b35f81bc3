package dev.kiln.operators.types;

import dev.kiln.model.Chunk;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink's serializer of {@link Chunk}s ({@link ChunkFields}). A chunk is immutable once made, so
 * {@link #copy} hands a chained operator the same instance. Chunks are not kept in state: the layout
 * may change with the snapshot version below.
 */
public final class ChunkSerializer extends ImmutableSerializer<Chunk> {
  private static final long serialVersionUID = 1L;
  public static final ChunkSerializer INSTANCE = new ChunkSerializer();

  @Override
  public void serialize(Chunk c, DataOutputView out) throws IOException {
    ChunkFields.write(c, out);
  }

  @Override
  public Chunk deserialize(DataInputView in) throws IOException {
    return ChunkFields.read(in);
  }

  @Override
  public TypeSerializerSnapshot<Chunk> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Version 1 is the layout of {@link ChunkFields}. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<Chunk> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
