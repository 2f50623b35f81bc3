package dev.kiln.ingest;

import dev.kiln.model.RawRecord;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** The type every corpus and changelog source declares, so that Flink uses {@link RawRecordSerializer}. */
public final class RawRecordTypeInfo extends TypeInformation<RawRecord> {
  private static final long serialVersionUID = 1L;
  public static final RawRecordTypeInfo INSTANCE = new RawRecordTypeInfo();

  private RawRecordTypeInfo() {}

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
  public Class<RawRecord> getTypeClass() {
    return RawRecord.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<RawRecord> createSerializer(SerializerConfig config) {
    return RawRecordSerializer.INSTANCE;
  }

  @Override
  public String toString() {
    return "RawRecord";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RawRecordTypeInfo;
  }

  @Override
  public int hashCode() {
    return RawRecordTypeInfo.class.hashCode();
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof RawRecordTypeInfo;
  }

  private Object readResolve() {
    return INSTANCE;
  }
}
