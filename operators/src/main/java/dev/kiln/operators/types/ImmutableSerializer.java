package dev.kiln.operators.types;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A serializer of records that are immutable once made (nothing downstream changes them, their arrays
 * included), so {@link #copy} hands a chained operator the same instance instead of a deep copy: the
 * generic serializers copied every field, a vector's floats included, for each of a million records.
 * Such records are not kept in state; a subclass writes and reads the fields and says its layout's
 * version in its snapshot.
 */
public abstract class ImmutableSerializer<T> extends TypeSerializerSingleton<T> {
  private static final long serialVersionUID = 1L;

  @Override
  public final boolean isImmutableType() {
    return true;
  }

  @Override
  public final T createInstance() {
    return null;
  }

  @Override
  public final T copy(T from) {
    return from;
  }

  @Override
  public final T copy(T from, T reuse) {
    return from;
  }

  @Override
  public final int getLength() {
    return -1;
  }

  @Override
  public final T deserialize(T reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public final void copy(DataInputView in, DataOutputView out) throws IOException {
    serialize(deserialize(in), out);
  }
}
