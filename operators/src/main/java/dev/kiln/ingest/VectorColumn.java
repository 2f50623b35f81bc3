package dev.kiln.ingest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * The vector column of a Parquet file read on its own, straight into a float buffer: the generic row
 * reader ({@code SimpleGroup}) builds one object per list element, which at 384 dimensions was the
 * largest cost of reading a row. Applies when the column ({@code ingest.vector-field}) is a list of
 * FLOAT or DOUBLE — a LIST-annotated group in the three-level ({@code list.element}) or two-level
 * ({@code repeated float}) layout, or a bare repeated number — and the file has other columns; the
 * other columns are read as before. A row whose list holds a null element gets the list into its JSON
 * instead (nulls included), for the parser to name, as the row reader did.
 */
final class VectorColumn {

  private final String name;
  private final MessageType file;
  private final MessageType vectorOnly;
  private final MessageType others;
  private final Layout layout;

  private enum Layout { BARE, TWO_LEVEL, THREE_LEVEL }

  private VectorColumn(String name, MessageType file, MessageType vectorOnly, MessageType others, Layout layout) {
    this.name = name;
    this.file = file;
    this.vectorOnly = vectorOnly;
    this.others = others;
    this.layout = layout;
  }

  /** The column, or null when {@code field} is absent, not a plain list of numbers, or the only column. */
  static VectorColumn of(MessageType schema, String field) {
    if (field == null || !schema.containsField(field) || schema.getFieldCount() < 2) {
      return null;
    }
    Type f = schema.getType(field);
    Layout layout;
    Type number;
    if (f.isPrimitive()) {
      if (!f.isRepetition(Type.Repetition.REPEATED)) {
        return null;
      }
      layout = Layout.BARE;
      number = f;
    } else {
      GroupType list = f.asGroupType();
      if (!(list.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation)
          || list.isRepetition(Type.Repetition.REPEATED) || list.getFieldCount() != 1
          || !list.getType(0).isRepetition(Type.Repetition.REPEATED)) {
        return null;
      }
      Type repeated = list.getType(0);
      if (repeated.isPrimitive()) {
        layout = Layout.TWO_LEVEL;
        number = repeated;
      } else {
        GroupType entry = repeated.asGroupType();
        if (entry.getFieldCount() != 1 || !entry.getType(0).isPrimitive()
            || entry.getType(0).isRepetition(Type.Repetition.REPEATED)) {
          return null;
        }
        layout = Layout.THREE_LEVEL;
        number = entry.getType(0);
      }
    }
    PrimitiveType.PrimitiveTypeName p = number.asPrimitiveType().getPrimitiveTypeName();
    if (p != PrimitiveType.PrimitiveTypeName.FLOAT && p != PrimitiveType.PrimitiveTypeName.DOUBLE) {
      return null;
    }
    List<Type> rest = new ArrayList<>(schema.getFields());
    rest.remove(f);
    return new VectorColumn(field, schema, new MessageType(schema.getName(), f),
        new MessageType(schema.getName(), rest), layout);
  }

  /** The file's schema without this column: what the row reader reads. */
  MessageType others() {
    return others;
  }

  /** A reader of this column's values, one {@link Values} a row, over a row group's pages. */
  RecordReader<Values> reader(PageReadStore pages) {
    return new ColumnIOFactory().getColumnIO(vectorOnly, file).getRecordReader(pages, new Materializer());
  }

  /** One row's list: absent (a null column), or its numbers with the positions of null elements. */
  final class Values {
    private final boolean present;
    private final float[] floats;
    private final boolean[] nulls; // null when none

    private Values(boolean present, float[] floats, boolean[] nulls) {
      this.present = present;
      this.floats = floats;
      this.nulls = nulls;
    }

    /**
     * Puts the list where the row reader put it: into {@code vector[0]} when it holds no null, else
     * into the row's JSON (nulls included) for the parser to judge; nothing when the column is null.
     */
    void into(ObjectNode json, float[][] vector) {
      if (!present) {
        return;
      }
      if (nulls == null) {
        vector[0] = floats;
        return;
      }
      ArrayNode a = json.putArray(name);
      for (int i = 0; i < floats.length; i++) {
        if (nulls[i]) {
          a.addNull();
        } else {
          a.add(floats[i]);
        }
      }
    }
  }

  /** Converters that append each number to a growing buffer; one instance per row group reader. */
  private final class Materializer extends RecordMaterializer<Values> {
    private float[] buffer = new float[512];
    private boolean[] nulls;
    private int size;
    private boolean present;
    private boolean elementSeen;

    private final PrimitiveConverter number = new PrimitiveConverter() {
      @Override
      public void addFloat(float value) {
        append(value);
      }

      @Override
      public void addDouble(double value) {
        append((float) value); // beyond float range: an infinity, which the vector check refuses
      }
    };

    /** The three-level layout's repeated group: one element each, a null when its value is missing. */
    private final GroupConverter entry = new GroupConverter() {
      @Override
      public Converter getConverter(int fieldIndex) {
        return number;
      }

      @Override
      public void start() {
        elementSeen = false;
      }

      @Override
      public void end() {
        if (!elementSeen) {
          append(0f);
          nulls = nulls == null ? new boolean[buffer.length] : ensure(nulls, size);
          nulls[size - 1] = true;
        }
      }
    };

    /** The LIST-annotated group itself (two- and three-level layouts). */
    private final GroupConverter list = new GroupConverter() {
      @Override
      public Converter getConverter(int fieldIndex) {
        return layout == Layout.THREE_LEVEL ? entry : number;
      }

      @Override
      public void start() {
        present = true;
      }

      @Override
      public void end() {}
    };

    private final GroupConverter root = new GroupConverter() {
      @Override
      public Converter getConverter(int fieldIndex) {
        return layout == Layout.BARE ? number : list;
      }

      @Override
      public void start() {
        size = 0;
        nulls = null;
        present = false;
      }

      @Override
      public void end() {}
    };

    private void append(float value) {
      if (size == buffer.length) {
        buffer = Arrays.copyOf(buffer, size * 2);
      }
      buffer[size++] = value;
      elementSeen = true;
      if (layout == Layout.BARE) {
        present = true;
      }
    }

    private boolean[] ensure(boolean[] flags, int length) {
      return flags.length >= length ? flags : Arrays.copyOf(flags, Math.max(length, flags.length * 2));
    }

    @Override
    public Values getCurrentRecord() {
      return new Values(present, Arrays.copyOf(buffer, size), nulls == null ? null : Arrays.copyOf(nulls, size));
    }

    @Override
    public GroupConverter getRootConverter() {
      return root;
    }
  }
}
