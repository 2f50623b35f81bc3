package dev.kiln.bench.scale;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * What reading the scale corpus costs the raw baseline each way (issue 47.1): the generic Avro record
 * with its boxed {@code List<Float>} vector, as {@link RawLuceneStep} read before, against the record
 * API with primitive converters ({@link RawRows}), which it reads with now. Alternated, one thread, in
 * one JVM after an untimed round of each; prints each round's seconds and the vectors' checksum (the
 * same both ways, so neither read skipped work).
 * {@code java -cp … dev.kiln.bench.scale.RawReadTiming CORPUS_DIR [ROUNDS]}
 */
public final class RawReadTiming {
  private RawReadTiming() {}

  public static void main(String[] args) throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.list(Path.of(args[0]))) {
      files = s.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
    }
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int r = -1; r < rounds; r++) {
      for (boolean avro : r % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
        long t0 = System.nanoTime();
        long c0 = mx.getCurrentThreadCpuTime();
        double sum = 0;
        for (Path f : files) {
          sum += avro ? avro(f) : converters(f);
        }
        if (r >= 0) {
          System.out.printf(Locale.ROOT, "round %d %-10s wall %.3f s cpu %.3f s checksum %.6f%n", r + 1,
              avro ? "avro" : "converters", (System.nanoTime() - t0) / 1e9, (mx.getCurrentThreadCpuTime() - c0) / 1e9,
              sum);
        }
      }
    }
  }

  private static double avro(Path file) throws Exception {
    double sum = 0;
    try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file))
        .withConf(new PlainParquetConfiguration()).build()) {
      for (GenericRecord r; (r = reader.read()) != null; ) {
        @SuppressWarnings("unchecked")
        List<Float> list = (List<Float>) r.get("vector");
        float[] v = new float[list.size()];
        for (int i = 0; i < v.length; i++) {
          v[i] = list.get(i);
        }
        sum += v[0] + r.get("text").toString().length() + r.get("_id").toString().length();
      }
    }
    return sum;
  }

  private static double converters(Path file) throws Exception {
    double[] sum = {0};
    RawRows.read(file, r -> sum[0] += r.vector()[0] + r.text().length() + r.id().length());
    return sum[0];
  }
}
