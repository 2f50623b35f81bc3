package dev.kiln.operators.types;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Flink's serializer of {@link RawRecord}s. A record is immutable once its source emits it (nothing
 * downstream changes its vector or row), so {@link #copy} hands the same instance to a chained parse
 * operator: the generic record serializer copied every field, the vector's floats included, for each
 * of a rebuild's million records. Between machines a record is written field by field; a decoded
 * Parquet row ({@link RawRecord#row}) travels as its JSON text and is parsed back on arrival.
 * Records are not kept in state, so the format is free to change with the version below.
 */
public final class RawRecordSerializer extends ImmutableSerializer<RawRecord> {
  private static final long serialVersionUID = 1L;
  public static final RawRecordSerializer INSTANCE = new RawRecordSerializer();
  // NaN and infinities in a float column travel as numbers, as they are in the row
  private static final ObjectMapper JSON = JsonMapper.builder()
      .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS).enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
  private static final InputFormat[] FORMATS = InputFormat.values();

  @Override
  public void serialize(RawRecord r, DataOutputView out) throws IOException {
    StringValue.writeString(r.sourceUri(), out);
    out.writeLong(r.offset());
    out.writeByte(r.format().ordinal());
    // a row is written as a row (below), not as the text payload() renders from it
    StringValue.writeString(r.row() == null ? r.payload() : null, out);
    StringValue.writeString(r.problem(), out);
    out.writeLong(r.bytes());
    out.writeLong(r.modified());
    StringValue.writeString(r.key(), out);
    float[] v = r.vector();
    out.writeInt(v == null ? -1 : v.length);
    if (v != null) {
      for (float f : v) {
        out.writeFloat(f);
      }
    }
    StringValue.writeString(r.row() == null ? null : JSON.writeValueAsString(r.row()), out);
  }

  @Override
  public RawRecord deserialize(DataInputView in) throws IOException {
    String uri = StringValue.readString(in);
    long offset = in.readLong();
    InputFormat format = FORMATS[in.readByte()];
    String payload = StringValue.readString(in);
    String problem = StringValue.readString(in);
    long bytes = in.readLong();
    long modified = in.readLong();
    String key = StringValue.readString(in);
    int n = in.readInt();
    float[] vector = n < 0 ? null : new float[n];
    for (int i = 0; i < n; i++) {
      vector[i] = in.readFloat();
    }
    String rowJson = StringValue.readString(in);
    ObjectNode row = rowJson == null ? null : (ObjectNode) JSON.readTree(rowJson);
    return new RawRecord(uri, offset, format, payload, problem, bytes, modified, key, vector, row);
  }

  @Override
  public TypeSerializerSnapshot<RawRecord> snapshotConfiguration() {
    return new Snapshot();
  }

  /** The snapshot Flink asks every serializer for; version 1 is the layout above. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<RawRecord> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
