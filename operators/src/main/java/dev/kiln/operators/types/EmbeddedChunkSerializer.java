package dev.kiln.operators.types;

import dev.kiln.model.EmbeddedChunk;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink's serializer of {@link EmbeddedChunk}s: the chunk ({@link ChunkFields}), then its vector. An
 * embedded chunk is immutable once made (nothing downstream changes its vector), so {@link #copy}
 * hands a chained operator the same instance. Not kept in state: the layout may change with the
 * snapshot version below.
 */
public final class EmbeddedChunkSerializer extends ImmutableSerializer<EmbeddedChunk> {
  private static final long serialVersionUID = 1L;
  public static final EmbeddedChunkSerializer INSTANCE = new EmbeddedChunkSerializer();

  @Override
  public void serialize(EmbeddedChunk c, DataOutputView out) throws IOException {
    ChunkFields.write(c.chunk(), out);
    ChunkFields.writeFloats(c.vector(), out);
  }

  @Override
  public EmbeddedChunk deserialize(DataInputView in) throws IOException {
    return new EmbeddedChunk(ChunkFields.read(in), ChunkFields.readFloats(in));
  }

  @Override
  public TypeSerializerSnapshot<EmbeddedChunk> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Version 1: the layout of {@link ChunkFields}, then the vector. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<EmbeddedChunk> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
