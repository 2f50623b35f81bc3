package dev.kiln.index;

import java.io.IOException;
import java.util.function.IntFunction;
import org.apache.lucene.codecs.StoredFieldsReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.StoredFieldDataInput;
import org.apache.lucene.index.StoredFieldVisitor;

/**
 * A segment's stored fields with one string field's value replaced for some documents: what a view
 * of a segment ({@link RelocatedChunks}) shows so that a copy made through {@code addIndexes} stores
 * the new value. Every other field, and the field in every other document, is read as stored.
 */
final class RewrittenStoredField extends StoredFieldsReader {
  private final StoredFieldsReader base;
  private final String field;
  /** The new value of {@link #field} in a document, or {@code null} to keep the stored one. */
  private final IntFunction<String> valueOf;

  RewrittenStoredField(StoredFieldsReader base, String field, IntFunction<String> valueOf) {
    this.base = base;
    this.field = field;
    this.valueOf = valueOf;
  }

  @Override
  public void document(int doc, StoredFieldVisitor visitor) throws IOException {
    String now = valueOf.apply(doc);
    if (now == null) {
      base.document(doc, visitor);
      return;
    }
    base.document(doc, new StoredFieldVisitor() {
      @Override
      public Status needsField(FieldInfo info) throws IOException {
        return visitor.needsField(info);
      }

      @Override
      public void stringField(FieldInfo info, String value) throws IOException {
        visitor.stringField(info, field.equals(info.name) ? now : value);
      }

      @Override
      public void binaryField(FieldInfo info, StoredFieldDataInput value) throws IOException {
        visitor.binaryField(info, value);
      }

      @Override
      public void binaryField(FieldInfo info, byte[] value) throws IOException {
        visitor.binaryField(info, value);
      }

      @Override
      public void intField(FieldInfo info, int value) throws IOException {
        visitor.intField(info, value);
      }

      @Override
      public void longField(FieldInfo info, long value) throws IOException {
        visitor.longField(info, value);
      }

      @Override
      public void floatField(FieldInfo info, float value) throws IOException {
        visitor.floatField(info, value);
      }

      @Override
      public void doubleField(FieldInfo info, double value) throws IOException {
        visitor.doubleField(info, value);
      }
    });
  }

  @Override
  public StoredFieldsReader clone() {
    return new RewrittenStoredField(base.clone(), field, valueOf);
  }

  @Override
  public StoredFieldsReader getMergeInstance() throws IOException {
    return new RewrittenStoredField(base.getMergeInstance(), field, valueOf);
  }

  @Override
  public void checkIntegrity() throws IOException {
    base.checkIntegrity();
  }

  @Override
  public void close() {
    // The segment's own reader belongs to the reader the view wraps.
  }
}
