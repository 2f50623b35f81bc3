package dev.kiln.ingest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * The vector column of a Parquet file read on its own, straight from its pages into floats
 * ({@link VectorColumnReader}): the generic row reader ({@code SimpleGroup}) builds one object per list
 * element, and Parquet's record assembly, even into a float buffer, spends more per element than the
 * rest of a row costs (half the reading thread of a million-row rebuild). Applies when the column ({@code ingest.vector-field}) is a list of
 * FLOAT or DOUBLE — a LIST-annotated group in the three-level ({@code list.element}) or two-level
 * ({@code repeated float}) layout, or a bare repeated number — and the file has other columns; the
 * other columns are read as before. A row whose list holds a null element gets the list into its JSON
 * instead (nulls included), for the parser to name, as the row reader did.
 */
final class VectorColumn {

  private final String name;
  private final MessageType file;
  private final MessageType others;
  private final Layout layout;

  private enum Layout { BARE, TWO_LEVEL, THREE_LEVEL }

  private VectorColumn(String name, MessageType file, MessageType others, Layout layout) {
    this.name = name;
    this.file = file;
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
    return new VectorColumn(field, schema, new MessageType(schema.getName(), rest), layout);
  }

  /** The file's schema without this column: what the row reader reads. */
  MessageType others() {
    return others;
  }

  /** A reader of this column's values, one {@link Values} a row, over a row group's pages. */
  VectorColumnReader reader(PageReadStore pages) {
    return new VectorColumnReader(this, pages);
  }

  /** The leaf column's path: the numbers themselves. */
  String[] leafPath() {
    Type f = file.getType(name);
    return switch (layout) {
      case BARE -> new String[] {name};
      case TWO_LEVEL -> new String[] {name, f.asGroupType().getType(0).getName()};
      case THREE_LEVEL -> {
        GroupType repeated = f.asGroupType().getType(0).asGroupType();
        yield new String[] {name, repeated.getName(), repeated.getType(0).getName()};
      }
    };
  }

  /**
   * The definition level from which a row's list is present (the list group defined, even empty), and
   * from which a level stands for an element (the repeated node defined); a bare repeated number is
   * present only with an element.
   */
  int[] definitionLevels() {
    String[] leaf = leafPath();
    if (layout == Layout.BARE) {
      int max = file.getMaxDefinitionLevel(leaf);
      return new int[] {max, max};
    }
    return new int[] {file.getMaxDefinitionLevel(name), file.getMaxDefinitionLevel(leaf[0], leaf[1])};
  }

  MessageType file() {
    return file;
  }

  /** One row's list: absent (a null column), or its numbers with the positions of null elements. */
  final class Values {
    private final boolean present;
    private final float[] floats;
    private final boolean[] nulls; // null when none

    Values(boolean present, float[] floats, boolean[] nulls) {
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
}
