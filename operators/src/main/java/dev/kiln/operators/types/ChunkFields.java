package dev.kiln.operators.types;

import dev.kiln.model.Chunk;
import dev.kiln.model.RecordPosition;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The wire layout of a {@link Chunk}, field by field, shared by the serializers of the records that
 * carry one. Every component of the record is written, in declaration order; {@code
 * ChunkSerializerTest} fails when a component is added without being written here.
 */
final class ChunkFields {
  private ChunkFields() {}

  static void write(Chunk c, DataOutputView out) throws IOException {
    StringValue.writeString(c.chunkId(), out);
    StringValue.writeString(c.docId(), out);
    out.writeInt(c.ordinal());
    StringValue.writeString(c.title(), out);
    StringValue.writeString(c.text(), out);
    out.writeInt(c.startChar());
    out.writeInt(c.endChar());
    out.writeInt(c.tokens());
    writeMetadata(c.metadata(), out);
    StringValue.writeString(c.breadcrumb(), out);
    StringValue.writeString(c.contentKey(), out);
    StringValue.writeString(c.parentId(), out);
    out.writeBoolean(c.oversize());
    StringValue.writeString(c.language(), out);
    writeFloats(c.vector(), out);
    StringValue.writeString(c.docFingerprint(), out);
    RecordPosition source = c.source();
    out.writeBoolean(source != null);
    if (source != null) {
      StringValue.writeString(source.sourceUri(), out);
      out.writeLong(source.offset());
    }
  }

  static Chunk read(DataInputView in) throws IOException {
    String chunkId = StringValue.readString(in);
    String docId = StringValue.readString(in);
    int ordinal = in.readInt();
    String title = StringValue.readString(in);
    String text = StringValue.readString(in);
    int startChar = in.readInt();
    int endChar = in.readInt();
    int tokens = in.readInt();
    Map<String, String> metadata = readMetadata(in);
    String breadcrumb = StringValue.readString(in);
    String contentKey = StringValue.readString(in);
    String parentId = StringValue.readString(in);
    boolean oversize = in.readBoolean();
    String language = StringValue.readString(in);
    float[] vector = readFloats(in);
    String docFingerprint = StringValue.readString(in);
    RecordPosition source = in.readBoolean() ? new RecordPosition(StringValue.readString(in), in.readLong()) : null;
    return new Chunk(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, breadcrumb,
        contentKey, parentId, oversize, language, vector, docFingerprint, source);
  }

  static void writeFloats(float[] v, DataOutputView out) throws IOException {
    out.writeInt(v == null ? -1 : v.length);
    if (v != null) {
      for (float f : v) {
        out.writeInt(Float.floatToRawIntBits(f));
      }
    }
  }

  static float[] readFloats(DataInputView in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = Float.intBitsToFloat(in.readInt());
    }
    return v;
  }

  private static void writeMetadata(Map<String, String> m, DataOutputView out) throws IOException {
    out.writeInt(m == null ? -1 : m.size());
    if (m != null) {
      for (Map.Entry<String, String> e : m.entrySet()) {
        StringValue.writeString(e.getKey(), out);
        StringValue.writeString(e.getValue(), out);
      }
    }
  }

  private static Map<String, String> readMetadata(DataInputView in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    Map<String, String> m = new LinkedHashMap<>(Math.max(4, n * 2));
    for (int i = 0; i < n; i++) {
      m.put(StringValue.readString(in), StringValue.readString(in));
    }
    return m;
  }
}
