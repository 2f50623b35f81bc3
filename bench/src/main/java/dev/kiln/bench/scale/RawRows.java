package dev.kiln.bench.scale;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The raw baseline's Parquet reader for the scale corpus: Parquet's own record assembly
 * ({@link MessageColumnIO#getRecordReader}) with converters written for this schema, so each vector
 * element arrives as a primitive {@code float} ({@link PrimitiveConverter#addFloat}) into a growable
 * {@code float[]} and each string as UTF-8 bytes — what a competent user of parquet-java writes
 * instead of a generic Avro record, whose vector is a {@code List<Float>} of boxed values
 * (docs/results/README.md, rule 8). Kiln's own reader (dev.kiln.ingest.VectorColumnReader) goes
 * further and copies a page's floats in bulk; the baseline keeps to Parquet's public record API.
 * Both list layouts parquet-avro writes are read: the old one (a repeated float) and the three-level
 * one (a repeated group holding the element).
 */
final class RawRows {
  /** One corpus row; its vector is a fresh array (the document keeps it until it is indexed). */
  record Row(String id, String title, String text, String tenant, String docType, float[] vector) {}

  private RawRows() {}

  /** Calls {@code sink} with every row of {@code file}, in order. */
  static long read(Path file, Consumer<Row> sink) throws IOException {
    ParquetReadOptions options = ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    long n = 0;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), options)) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      Materializer m = new Materializer(schema);
      for (PageReadStore pages; (pages = reader.readNextRowGroup()) != null; ) {
        RecordReader<Row> rows = io.getRecordReader(pages, m);
        for (long i = 0, count = pages.getRowCount(); i < count; i++) {
          sink.accept(rows.read());
          n++;
        }
      }
    }
    return n;
  }

  /** Fills the row's fields as Parquet's record reader hands them over. */
  private static final class Materializer extends RecordMaterializer<Row> {
    private final String[] strings = new String[5];
    private float[] vector = new float[512];
    private int dims;
    private final GroupConverter root;

    Materializer(MessageType schema) {
      Converter[] fields = new Converter[schema.getFieldCount()];
      for (int i = 0; i < fields.length; i++) {
        Type f = schema.getType(i);
        fields[i] = switch (f.getName()) {
          case "_id" -> text(0);
          case "title" -> text(1);
          case "text" -> text(2);
          case "tenant" -> text(3);
          case "doc_type" -> text(4);
          case "vector" -> list(f.asGroupType());
          default -> throw new IllegalArgumentException("unexpected column " + f.getName());
        };
      }
      root = new GroupConverter() {
        @Override
        public Converter getConverter(int i) {
          return fields[i];
        }

        @Override
        public void start() {
          dims = 0;
          Arrays.fill(strings, null);
        }

        @Override
        public void end() {}
      };
    }

    private PrimitiveConverter text(int slot) {
      return new PrimitiveConverter() {
        @Override
        public void addBinary(Binary value) {
          strings[slot] = value.toStringUsingUTF8();
        }
      };
    }

    private PrimitiveConverter element() {
      return new PrimitiveConverter() {
        @Override
        public void addFloat(float value) {
          if (dims == vector.length) {
            vector = Arrays.copyOf(vector, dims * 2);
          }
          vector[dims++] = value;
        }
      };
    }

    /** The LIST group: its repeated child is the float itself (old layout) or a group holding it. */
    private GroupConverter list(GroupType type) {
      Type repeated = type.getType(0);
      Converter child = repeated.isPrimitive() ? element() : group(element());
      return group(child);
    }

    private static GroupConverter group(Converter only) {
      return new GroupConverter() {
        @Override
        public Converter getConverter(int i) {
          return only;
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
      };
    }

    @Override
    public Row getCurrentRecord() {
      return new Row(strings[0], strings[1], strings[2], strings[3], strings[4], Arrays.copyOf(vector, dims));
    }

    @Override
    public GroupConverter getRootConverter() {
      return root;
    }
  }
}
