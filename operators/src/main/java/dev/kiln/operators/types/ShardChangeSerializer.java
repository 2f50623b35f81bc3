package dev.kiln.operators.types;

import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.RecordPosition;
import dev.kiln.model.ShardChange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Flink's serializer of {@link ShardChange}s: the kind (one byte), the document id, then the kind's
 * payload: an added chunk ({@link ChunkFields} and its vector), or a kept record's position, its source
 * URI as UTF-8 bytes and its offset.
 *
 * <p>Nearly all of an incremental build's changes are {@code KEEP}s, one per unchanged record, and the
 * records of one file arrive together: the last URI read is remembered, and a position in the same
 * file reuses its string instead of decoding a new one (a million 70-character strings at 1M chunks,
 * each hashed again by the writer that resolves positions). That memory makes the serializer stateful,
 * so {@link #duplicate} gives each user its own. The bytes do not depend on it: a record reads the
 * same in any order. Changes are not kept in state: the layout may change with the snapshot version.
 */
public final class ShardChangeSerializer extends ImmutableSerializer<ShardChange> {
  private static final long serialVersionUID = 1L;
  private static final ShardChange.Kind[] KINDS = ShardChange.Kind.values();

  private transient String lastWritten;
  private transient byte[] lastWrittenBytes;
  private transient String lastRead;
  private transient byte[] lastReadBytes;
  private transient byte[] scratch;

  /** A new instance: the remembered URIs are this instance's (see the class comment). */
  @Override
  public ShardChangeSerializer duplicate() {
    return new ShardChangeSerializer();
  }

  @Override
  public void serialize(ShardChange c, DataOutputView out) throws IOException {
    out.writeByte(c.kind().ordinal());
    StringValue.writeString(c.docId(), out);
    switch (c.kind()) {
      case ADD -> {
        ChunkFields.write(c.chunk().chunk(), out);
        ChunkFields.writeFloats(c.chunk().vector(), out);
      }
      case KEEP -> {
        byte[] uri = uriBytes(c.unchangedAt().sourceUri());
        out.writeInt(uri.length);
        out.write(uri);
        out.writeLong(c.unchangedAt().offset());
      }
      case REPLACE, DELETE -> {}
    }
  }

  private byte[] uriBytes(String uri) {
    if (!uri.equals(lastWritten)) {
      lastWritten = uri;
      lastWrittenBytes = uri.getBytes(StandardCharsets.UTF_8);
    }
    return lastWrittenBytes;
  }

  @Override
  public ShardChange deserialize(DataInputView in) throws IOException {
    ShardChange.Kind kind = KINDS[in.readUnsignedByte()];
    String docId = StringValue.readString(in);
    return switch (kind) {
      case ADD -> {
        EmbeddedChunk chunk = new EmbeddedChunk(ChunkFields.read(in), ChunkFields.readFloats(in));
        yield new ShardChange(chunk, docId, kind, null);
      }
      case KEEP -> {
        String uri = readUri(in);
        yield new ShardChange(null, docId, kind, new RecordPosition(uri, in.readLong()));
      }
      case REPLACE, DELETE -> new ShardChange(null, docId, kind, null);
    };
  }

  private String readUri(DataInputView in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("corrupt shard change: URI length " + n);
    }
    if (scratch == null || scratch.length < n) {
      scratch = new byte[Math.max(n, 128)];
    }
    in.readFully(scratch, 0, n);
    if (lastReadBytes == null || !Arrays.equals(scratch, 0, n, lastReadBytes, 0, lastReadBytes.length)) {
      lastReadBytes = Arrays.copyOf(scratch, n);
      lastRead = new String(lastReadBytes, StandardCharsets.UTF_8);
    }
    return lastRead;
  }

  @Override
  public TypeSerializerSnapshot<ShardChange> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Version 1 is the layout above. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<ShardChange> {
    public Snapshot() {
      super(ShardChangeSerializer::new);
    }
  }
}
