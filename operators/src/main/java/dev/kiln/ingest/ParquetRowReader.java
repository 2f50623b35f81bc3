package dev.kiln.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.file.src.reader.BulkFormat;
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
 * Rows of a Parquet file, streamed one row group at a time, each rendered as a JSON object with the
 * file's own column names (the parser maps them to id, title, text and metadata). The split owns the
 * row groups that start inside it. A row group that cannot be read becomes one {@code
 * unreadable_row_group} record at the group's offset and reading goes on with the next group.
 */
final class ParquetRowReader implements BulkFormat.Reader<RawRecord> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final String uri;
  private final ParquetFileReader reader;
  private final MessageType schema;
  private final List<Integer> groups = new ArrayList<>();
  private final long modified;
  private int nextGroup;
  private RecordReader<Group> rows;
  private long rowsLeft;
  private long groupOffset;
  private long bytesPerRow;

  ParquetRowReader(String uri, ParquetFileReader reader, long start, long end, long modified) {
    this.uri = uri;
    this.reader = reader;
    this.schema = reader.getFooter().getFileMetaData().getSchema();
    this.modified = modified;
    List<BlockMetaData> blocks = reader.getRowGroups();
    for (int i = 0; i < blocks.size(); i++) {
      long s = blocks.get(i).getStartingPos();
      if (s >= start && s < end) {
        groups.add(i);
      }
    }
  }

  @Override
  public BulkFormat.RecordIterator<RawRecord> readBatch() throws IOException {
    List<RawRecord> batch = new ArrayList<>(RecordBatches.SIZE);
    while (batch.size() < RecordBatches.SIZE) {
      if (rowsLeft == 0 && !openNextGroup(batch)) {
        break;
      }
      if (rowsLeft == 0) {
        continue;
      }
      try {
        Group row = rows.read();
        rowsLeft--;
        batch.add(RawRecord.of(uri, groupOffset, InputFormat.PARQUET, JSON.writeValueAsString(toJson(row)))
            .withSource(bytesPerRow, modified));
      } catch (RuntimeException e) {
        batch.add(unreadable(rowsLeft + " rows left: " + e));
        rowsLeft = 0;
      }
    }
    return RecordBatches.of(batch);
  }

  /** Opens the next owned row group; false when there is none. A group that fails is reported in {@code batch}. */
  private boolean openNextGroup(List<RawRecord> batch) {
    if (nextGroup >= groups.size()) {
      return false;
    }
    int index = groups.get(nextGroup++);
    BlockMetaData block = reader.getRowGroups().get(index);
    groupOffset = block.getStartingPos();
    bytesPerRow = block.getRowCount() == 0 ? 0 : block.getCompressedSize() / block.getRowCount();
    try {
      PageReadStore pages = reader.readRowGroup(index);
      rows = new ColumnIOFactory().getColumnIO(schema).getRecordReader(pages, new GroupRecordConverter(schema));
      rowsLeft = pages.getRowCount();
    } catch (IOException | RuntimeException e) {
      batch.add(unreadable("row group " + index + " (" + block.getRowCount() + " rows): " + e));
      rowsLeft = 0;
    }
    return true;
  }

  private RawRecord unreadable(String detail) {
    return new RawRecord(uri, groupOffset, InputFormat.PARQUET, detail, QuarantineReason.UNREADABLE_ROW_GROUP);
  }

  static ObjectNode toJson(Group g) {
    ObjectNode o = NODES.objectNode();
    GroupType type = g.getType();
    for (int i = 0; i < type.getFieldCount(); i++) {
      Type f = type.getType(i);
      int n = g.getFieldRepetitionCount(i);
      if (n == 0) {
        continue;
      }
      if (f.isRepetition(Type.Repetition.REPEATED)) {
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

  private static JsonNode value(Group g, int field, int index) {
    Type f = g.getType().getType(field);
    if (f.isPrimitive()) {
      PrimitiveType p = f.asPrimitiveType();
      return switch (p.getPrimitiveTypeName()) {
        case BINARY, FIXED_LEN_BYTE_ARRAY -> NODES.textNode(g.getString(field, index));
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
    return toJson(sub);
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
