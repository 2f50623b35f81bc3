package dev.kiln.vectors;

import dev.kiln.snapshot.SnapshotLayout;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;

/**
 * A snapshot's stored chunk vectors: {@code embeddings/part-NNNNN.parquet}, one file per embed
 * subtask, rows {@code (key: string, vector: list<float>)}. The file footer records the model
 * fingerprint and dimension, so a file is never read as another model's vectors. Format version 1.
 */
public final class VectorFiles {
  public static final String DIRECTORY = SnapshotLayout.EMBEDDINGS;
  public static final String META_FORMAT = "kiln.vectors.format";
  public static final String META_FINGERPRINT = "kiln.model.fingerprint";
  public static final String META_DIMENSION = "kiln.model.dimension";
  static final String FORMAT = "1";

  static final Schema SCHEMA = SchemaBuilder.record("ChunkVector").namespace("dev.kiln.vectors").fields()
      .requiredString("key")
      .name("vector").type().array().items().floatType().noDefault()
      .endRecord();

  private VectorFiles() {}

  public static String partName(int subtask) {
    return String.format(Locale.ROOT, "part-%05d.parquet", subtask);
  }

  /** The part files of an embeddings directory, sorted. */
  public static List<Path> parts(Path dir) throws IOException {
    List<Path> parts = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return parts;
    }
    try (Stream<Path> s = Files.list(dir)) {
      s.filter(p -> p.getFileName().toString().endsWith(".parquet")).sorted().forEach(parts::add);
    }
    return parts;
  }

  /** Writes one part file; rows go out as they come, so memory stays flat. */
  public static final class Writer implements Closeable {
    private final ParquetWriter<GenericRecord> writer;
    private final int dimension;
    private long rows;

    public Writer(Path file, String fingerprint, int dimension) throws IOException {
      Files.createDirectories(file.getParent());
      this.dimension = dimension;
      this.writer = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
          .withConf(new PlainParquetConfiguration())
          .withSchema(SCHEMA)
          .withCompressionCodec(CompressionCodecName.SNAPPY)
          .withWriteMode(ParquetFileWriter.Mode.OVERWRITE) // a restarted subtask rewrites its part
          .withExtraMetaData(Map.of(META_FORMAT, FORMAT, META_FINGERPRINT, fingerprint,
              META_DIMENSION, Integer.toString(dimension)))
          .build();
    }

    public void write(String key, float[] vector) throws IOException {
      if (vector.length != dimension) {
        throw new IllegalArgumentException("vector of " + vector.length + " dims in a " + dimension + "-d file");
      }
      GenericData.Array<Float> array = new GenericData.Array<>(vector.length, SCHEMA.getField("vector").schema());
      for (float f : vector) {
        array.add(f);
      }
      GenericRecord r = new GenericData.Record(SCHEMA);
      r.put("key", key);
      r.put("vector", array);
      writer.write(r);
      rows++;
    }

    public long rows() {
      return rows;
    }

    @Override
    public void close() throws IOException {
      writer.close();
    }
  }

  /** The footer's key-value metadata (fingerprint, dimension, format). */
  public static Map<String, String> metadata(Path file) throws IOException {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      return r.getFooter().getFileMetaData().getKeyValueMetaData();
    }
  }

  /**
   * Streams every row of a part file to {@code sink}, after checking that it holds vectors of the
   * expected model.
   */
  public static void read(Path file, String fingerprint, int dimension, BiConsumer<String, float[]> sink)
      throws IOException {
    Map<String, String> meta = metadata(file);
    if (!fingerprint.equals(meta.get(META_FINGERPRINT))
        || !Integer.toString(dimension).equals(meta.get(META_DIMENSION))) {
      throw new IOException(file + " holds vectors of model " + meta.get(META_FINGERPRINT) + " ("
          + meta.get(META_DIMENSION) + "-d), not " + fingerprint + " (" + dimension + "-d)");
    }
    try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file))
        .withConf(new PlainParquetConfiguration())
        .build()) {
      for (GenericRecord r; (r = reader.read()) != null; ) {
        @SuppressWarnings("unchecked")
        List<Float> list = (List<Float>) r.get("vector");
        float[] v = new float[list.size()];
        for (int i = 0; i < v.length; i++) {
          v[i] = list.get(i);
        }
        sink.accept(r.get("key").toString(), v);
      }
    }
  }
}
