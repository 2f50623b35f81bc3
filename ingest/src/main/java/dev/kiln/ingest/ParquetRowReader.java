package dev.kiln.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Rows of a Parquet file, streamed one row group at a time, each decoded into a JSON object tree with
 * the file's own column names (the parser maps them to id, title, text and metadata) and handed on as
 * that tree ({@link RawRecord#row}), not as text. A row whose text columns hold more characters than
 * {@code ingest.max-record-bytes} is a {@code too_large} record. The split owns the
 * row groups that start inside it. A row group that cannot be read becomes one {@code
 * unreadable_row_group} record at its first row's number and reading goes on with the next group. A
 * record's offset is its row's number in the file. The
 * vector column ({@code ingest.vector-field}), when it is a plain list of numbers without nulls, is
 * decoded straight into floats beside the JSON ({@link RawRecord#vector}) instead of into it: at 384
 * dimensions, rendering the floats as text and parsing them back was most of the parse stage's time.
 * It is read by its own column reader ({@link VectorColumn}) into a float buffer, not through the
 * generic row objects; a vector column of another shape (or a file of nothing else) stays in the JSON,
 * where the parser reads or refuses it. The text column ({@code ingest.text-field}), a top-level
 * string, stays as the file's UTF-8 bytes ({@link Utf8Text}) until something asks for the string: an
 * incremental build fingerprints an unchanged row from those bytes and never decodes its text.
 */
final class ParquetRowReader implements BatchReader {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final String uri;
  private final ParquetFileReader reader;
  private final MessageType schema;
  private final List<Integer> groups = new ArrayList<>();
  private final long modified;
  private int nextGroup;
  private RecordReader<Group> rows;
  /** The vector column read apart from the rows (null: it stays with them); see {@link VectorColumn}. */
  private final VectorColumn vectors;
  private VectorColumnReader vectorRows;
  private long rowsLeft;
  /** The file's row number of each row group's first row. */
  private final long[] firstRows;
  /**
   * A record's offset: the row's number in the file, from 0. Byte offsets cannot tell the rows of one
   * row group apart, and duplicate ids are resolved by (file, offset): every row needs its own.
   */
  private long rowNumber;
  private long bytesPerRow;
  /** {@code ingest.max-record-bytes}, held against the characters of a row's text columns. */
  private final long maxRecordChars;
  /** The characters of the text columns of the row being decoded, but for its {@link #text}. */
  private long chars;
  /** The top-level string column kept as UTF-8 ({@code ingest.text-field}), or {@code null}. */
  private final String textField;
  /** The row's {@link #textField} value, or {@code null}. */
  private Utf8Text text;

  ParquetRowReader(String uri, ParquetFileReader reader, long start, long end, long modified, String vectorField,
      String textField, long maxRecordChars) {
    this.uri = uri;
    this.textField = textField;
    this.maxRecordChars = maxRecordChars;
    this.reader = reader;
    this.schema = reader.getFooter().getFileMetaData().getSchema();
    this.vectors = VectorColumn.of(schema, vectorField);
    this.modified = modified;
    List<BlockMetaData> blocks = reader.getRowGroups();
    firstRows = new long[blocks.size()];
    for (int i = 1; i < blocks.size(); i++) {
      firstRows[i] = firstRows[i - 1] + blocks.get(i - 1).getRowCount();
    }
    for (int i = 0; i < blocks.size(); i++) {
      long s = blocks.get(i).getStartingPos();
      if (s >= start && s < end) {
        groups.add(i);
      }
    }
  }

  @Override
  public List<RawRecord> readBatch() throws IOException {
    List<RawRecord> batch = new ArrayList<>(SIZE);
    while (batch.size() < SIZE) {
      if (rowsLeft == 0 && !openNextGroup(batch)) {
        break;
      }
      if (rowsLeft == 0) {
        continue;
      }
      try {
        Group row = rows.read();
        rowsLeft--;
        float[][] vector = new float[1][];
        chars = 0;
        text = null;
        ObjectNode fields = toJson(row, true);
        if (vectors != null) {
          vectorRows.read().into(fields, vector);
        }
        if (tooLarge()) {
          batch.add(new RawRecord(uri, rowNumber++, InputFormat.PARQUET, null, QuarantineReason.TOO_LARGE,
              bytesPerRow, modified));
          continue;
        }
        batch.add(RawRecord.ofRow(uri, rowNumber++, InputFormat.PARQUET, fields).withSource(bytesPerRow, modified)
            .withVector(vector[0]));
      } catch (RuntimeException e) {
        batch.add(unreadable(rowsLeft + " rows left: " + e));
        rowsLeft = 0;
      }
    }
    return batch;
  }

  /** Opens the next owned row group; false when there is none. A group that fails is reported in {@code batch}. */
  private boolean openNextGroup(List<RawRecord> batch) {
    if (nextGroup >= groups.size()) {
      return false;
    }
    int index = groups.get(nextGroup++);
    BlockMetaData block = reader.getRowGroups().get(index);
    rowNumber = firstRows[index];
    bytesPerRow = block.getRowCount() == 0 ? 0 : block.getCompressedSize() / block.getRowCount();
    try {
      PageReadStore pages = reader.readRowGroup(index);
      MessageType rowSchema = vectors != null ? vectors.others() : schema;
      rows = new ColumnIOFactory().getColumnIO(rowSchema, schema)
          .getRecordReader(pages, new GroupRecordConverter(rowSchema));
      vectorRows = vectors != null ? vectors.reader(pages) : null;
      rowsLeft = pages.getRowCount();
    } catch (IOException | RuntimeException e) {
      batch.add(unreadable("row group " + index + " (" + block.getRowCount() + " rows): " + e));
      rowsLeft = 0;
    }
    return true;
  }

  private RawRecord unreadable(String detail) {
    return new RawRecord(uri, rowNumber, InputFormat.PARQUET, detail, QuarantineReason.UNREADABLE_ROW_GROUP);
  }

  /**
   * Whether the row's text columns hold more characters than {@code ingest.max-record-bytes}; the
   * kept text's byte length bounds its characters, so it is decoded to count them only past the limit.
   */
  private boolean tooLarge() {
    if (text == null || chars + text.byteLength() <= maxRecordChars) {
      return chars > maxRecordChars;
    }
    return chars + text.toString().length() > maxRecordChars;
  }

  /** The row (top: the file's row, not a nested group) as a JSON object. */
  ObjectNode toJson(Group g, boolean top) {
    ObjectNode o = NODES.objectNode();
    GroupType type = g.getType();
    for (int i = 0; i < type.getFieldCount(); i++) {
      Type f = type.getType(i);
      int n = g.getFieldRepetitionCount(i);
      if (n == 0) {
        continue;
      }
      if (top && f.getName().equals(textField) && !f.isRepetition(Type.Repetition.REPEATED) && f.isPrimitive()
          && f.asPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BINARY) {
        // copy(): a value whose reader reuses its bytes gets its own; the bytes are only ever read
        text = new Utf8Text(g.getBinary(i, 0).copy().getBytes());
        o.putPOJO(f.getName(), text);
      } else if (f.isRepetition(Type.Repetition.REPEATED)) {
        ArrayNode a = o.putArray(f.getName());
        for (int j = 0; j < n; j++) {
          a.add(value(g, i, j));
        }
      } else {
        o.set(f.getName(), value(g, i, 0));
      }
    }
    return o;
  }

  private JsonNode value(Group g, int field, int index) {
    Type f = g.getType().getType(field);
    if (f.isPrimitive()) {
      PrimitiveType p = f.asPrimitiveType();
      return switch (p.getPrimitiveTypeName()) {
        case BINARY, FIXED_LEN_BYTE_ARRAY -> {
          String text = g.getString(field, index);
          chars += text.length();
          yield NODES.textNode(text);
        }
        case INT32 -> NODES.numberNode(g.getInteger(field, index));
        case INT64 -> NODES.numberNode(g.getLong(field, index));
        case BOOLEAN -> NODES.booleanNode(g.getBoolean(field, index));
        case FLOAT -> NODES.numberNode(g.getFloat(field, index));
        case DOUBLE -> NODES.numberNode(g.getDouble(field, index));
        default -> NODES.textNode(g.getValueToString(field, index));
      };
    }
    Group sub = g.getGroup(field, index);
    LogicalTypeAnnotation logical = f.getLogicalTypeAnnotation();
    if (logical instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation && sub.getType().getFieldCount() == 1) {
      // MAP: one repeated group of (key, value).
      ObjectNode m = NODES.objectNode();
      for (int k = 0; k < sub.getFieldRepetitionCount(0); k++) {
        Group kv = sub.getGroup(0, k);
        if (kv.getFieldRepetitionCount(0) > 0) {
          m.set(kv.getString(0, 0), kv.getType().getFieldCount() > 1 && kv.getFieldRepetitionCount(1) > 0
              ? value(kv, 1, 0) : NODES.nullNode());
        }
      }
      return m;
    }
    if (logical instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation && sub.getType().getFieldCount() == 1) {
      ArrayNode a = NODES.arrayNode();
      for (int k = 0; k < sub.getFieldRepetitionCount(0); k++) {
        a.add(value(sub, 0, k));
      }
      return a;
    }
    return toJson(sub, false);
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
