package dev.kiln.bench.scale;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * The benchmark corpus: {@code n} records, one chunk each, written as Parquet parts with their
 * precomputed vectors (the layout an upstream GPU or API embedding job would hand Kiln). Every record
 * is a pure function of (seed, index), so a run is reproducible and a "changed" corpus differs from
 * the original in exactly the chosen records.
 *
 * <p>Vectors: a random convex mix of 2–3 real document vectors plus Gaussian noise, re-normalised,
 * so the data has the clustered, anisotropic shape HNSW meets on real embeddings rather than uniform
 * noise on the sphere. Text: {@link TextModel}. Metadata: one of eight tenants (Zipf-like weights)
 * and one of three document types.
 */
final class SyntheticCorpus {
  static final int ROWS_PER_FILE = 50_000;
  static final String[] TENANTS = {"acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka"};
  static final String[] DOC_TYPES = {"article", "faq", "manual"};
  static final Schema SCHEMA = SchemaBuilder.record("Doc").namespace("dev.kiln.bench").fields()
      .requiredString("_id").requiredString("title").requiredString("text")
      .requiredString("tenant").requiredString("doc_type")
      .name("vector").type().array().items().floatType().noDefault()
      .endRecord();

  private final BaseData base;
  private final long seed;
  private final double noise;

  SyntheticCorpus(BaseData base, long seed, double noise) {
    this.base = base;
    this.seed = seed;
    this.noise = noise;
  }

  static String id(long i) {
    return String.format(Locale.ROOT, "d%09d", i);
  }

  /** Whether record {@code i} is among the changed fraction (a seeded choice, about {@code fraction} of all). */
  boolean changed(long i, double fraction) {
    return fraction > 0 && new SplittableRandom(mix(seed ^ 0x5DEECE66DL, i)).nextDouble() < fraction;
  }

  /**
   * Writes the corpus into {@code dir} as {@code part-NNNN.parquet}; records selected by
   * {@link #changed} at {@code changedFraction} get new text and a new vector.
   *
   * @param vectorsOut where to also write the vectors as little-endian float32 rows in id order (for
   *     the exact-search ground truth), or {@code null}
   * @return how many records were changed
   */
  long write(long n, Path dir, double changedFraction, Path vectorsOut) throws IOException {
    Files.createDirectories(dir);
    long changedCount = 0;
    OutputStream vout = vectorsOut == null ? null : new BufferedOutputStream(Files.newOutputStream(vectorsOut), 1 << 20);
    try {
      for (long start = 0; start < n; start += ROWS_PER_FILE) {
        changedCount += writePart(dir, start, Math.min(n, start + ROWS_PER_FILE), changedFraction, 0, 0, vout);
      }
    } finally {
      if (vout != null) {
        vout.close();
      }
    }
    return changedCount;
  }

  /**
   * Rewrites only the first part file of a corpus {@link #write written} at {@code changedFraction}, with
   * {@code fraction} of all {@code n} records (or the whole file, if fewer) changed again within it: a
   * nightly export that rewrote one file and left the others as they were.
   *
   * @return how many records of the file differ from the corpus it replaces
   */
  long rewriteFirstPart(long n, Path dir, double changedFraction, double fraction) throws IOException {
    long end = Math.min(n, ROWS_PER_FILE);
    double within = Math.min(1.0, fraction * n / end);
    return writePart(dir, 0, end, changedFraction, within, 0, null);
  }

  /**
   * Round {@code round} (1, 2, …) of a one-file change: the first part file rewritten with {@code fraction}
   * of all {@code n} records changed within it, chosen afresh each round (night {@code round × parts} of
   * {@link #rewritePart}, which always falls on the first file), so that repeated rounds each change
   * something new where {@link #rewriteFirstPart} would write the same bytes again.
   *
   * @return how many records this round changed
   */
  long changeFirstPart(long n, Path dir, double fraction, int round) throws IOException {
    int parts = (int) ((n + ROWS_PER_FILE - 1) / ROWS_PER_FILE);
    return rewritePart(n, dir, fraction, round * parts);
  }

  /**
   * Night {@code night} of a nightly export (1, 2, …): part file {@code night % parts} rewritten with {@code
   * fraction} of all {@code n} records changed within it — records and new text chosen afresh each
   * night, so that every night changes something the night before did not.
   *
   * @return how many records of the file differ from the original corpus's
   */
  long rewritePart(long n, Path dir, double fraction, int night) throws IOException {
    int parts = (int) ((n + ROWS_PER_FILE - 1) / ROWS_PER_FILE);
    long start = (long) (night % parts) * ROWS_PER_FILE;
    long end = Math.min(n, start + ROWS_PER_FILE);
    double within = Math.min(1.0, fraction * n / (end - start));
    return writePart(dir, start, end, 0, within, night, parts, null);
  }

  /** The part file night {@code night} rewrites ({@link #rewritePart}). */
  static String partOfNight(long n, int night) {
    int parts = (int) ((n + ROWS_PER_FILE - 1) / ROWS_PER_FILE);
    return String.format(Locale.ROOT, "part-%04d.parquet", night % parts);
  }

  /** Writes records {@code start..end} as one part file; returns how many differ from the original corpus (or from the {@code changedFraction} one). */
  private long writePart(Path dir, long start, long end, double changedFraction, double againFraction, long night,
      OutputStream vout) throws IOException {
    return writePart(dir, start, end, changedFraction, againFraction, night, 1, vout);
  }

  /** Whether night {@code night} chose record {@code i} to change (a seeded choice, about {@code fraction}). */
  private boolean chosen(long i, long night, double fraction) {
    return new SplittableRandom(mix(seed ^ 0x2545F4914F6CDD1DL ^ night * 0x9E3779B97F4A7C15L, i)).nextDouble()
        < fraction;
  }

  private long writePart(Path dir, long start, long end, double changedFraction, double againFraction, long night,
      int parts, OutputStream vout) throws IOException {
    int dim = base.docVectors.get(0).length;
    ByteBuffer row = ByteBuffer.allocate(dim * 4).order(ByteOrder.LITTLE_ENDIAN);
    long changedCount = 0;
    Path file = dir.resolve(String.format(Locale.ROOT, "part-%04d.parquet", start / ROWS_PER_FILE));
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withConf(new PlainParquetConfiguration())
        .withSchema(SCHEMA)
        .withCompressionCodec(CompressionCodecName.SNAPPY)
        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .build()) {
      for (long i = start; i < end; i++) {
        boolean change = changed(i, changedFraction);
        // Night 0 is the one-file rewrite of RemoteScaleBench. A later night rewrites the file it is given
        // (night % parts): a record keeps the text of the last night that chose it, so each night changes
        // about againFraction of the file, never undoing an earlier night's change.
        long latest = 0;
        if (night > 0) {
          for (long k = night; k >= 1 && latest == 0; k -= parts) {
            latest = chosen(i, k, againFraction) ? k : 0;
          }
        }
        boolean again = night > 0 ? latest == night : againFraction > 0 && chosen(i, 0, againFraction);
        changedCount += (againFraction > 0 ? again : change) ? 1 : 0;
        SplittableRandom rnd = new SplittableRandom(mix(night == 0 && again ? seed * 31 + 7
            : latest > 0 ? seed * 31 + 7 + latest * 1_000_003L : change ? ~seed : seed, i));
        float[] v = vector(rnd, base.docVectors);
        GenericRecord r = new GenericData.Record(SCHEMA);
        r.put("_id", id(i));
        r.put("title", base.text.title(rnd));
        r.put("text", base.text.text(rnd));
        r.put("tenant", TENANTS[zipf(rnd, TENANTS.length)]);
        r.put("doc_type", DOC_TYPES[rnd.nextInt(DOC_TYPES.length)]);
        List<Float> list = new ArrayList<>(dim);
        for (float f : v) {
          list.add(f);
        }
        r.put("vector", list);
        w.write(r);
        if (vout != null) {
          row.clear();
          row.asFloatBuffer().put(v);
          vout.write(row.array());
        }
      }
    }
    return changedCount;
  }

  /** The benchmark's report query vectors ({@link QuerySplit#REPORT}). */
  List<float[]> queryVectors(int count) {
    return queryVectors(QuerySplit.REPORT, count);
  }

  /**
   * {@code count} query vectors of one set: real query vectors of that set's half perturbed like the
   * documents (each mixed only with others of the same half), the q-th led by the half's
   * (q mod size)-th; a function of (seed, set, q).
   */
  List<float[]> queryVectors(QuerySplit set, int count) {
    List<float[]> pool = set.members(base.queryVectors.size()).stream().map(base.queryVectors::get).toList();
    List<float[]> out = new ArrayList<>();
    for (int q = 0; q < count; q++) {
      out.add(vector(new SplittableRandom(mix(seed + set.seedOffset, q)), pool, q % pool.size()));
    }
    return out;
  }

  /** The report queries' texts ({@link QuerySplit#REPORT}). */
  List<String> queryTexts(int count) {
    return queryTexts(QuerySplit.REPORT, count);
  }

  /** The text of each query of {@link #queryVectors(QuerySplit, int)}: its leading base query's. */
  List<String> queryTexts(QuerySplit set, int count) {
    List<Integer> members = set.members(base.queryTexts.size());
    List<String> out = new ArrayList<>();
    for (int q = 0; q < count; q++) {
      out.add(base.queryTexts.get(members.get(q % members.size())));
    }
    return out;
  }

  private float[] vector(SplittableRandom rnd, List<float[]> pool) {
    return vector(rnd, pool, rnd.nextInt(pool.size()));
  }

  /** A convex mix of {@code pool[first]} and 1–2 more random members, plus noise, at unit length. */
  private float[] vector(SplittableRandom rnd, List<float[]> pool, int first) {
    int parts = 2 + rnd.nextInt(2);
    int dim = pool.get(0).length;
    double[] acc = new double[dim];
    double[] w = new double[parts];
    double sum = 0;
    for (int p = 0; p < parts; p++) {
      w[p] = -Math.log(1 - rnd.nextDouble()); // Dirichlet(1, ..., 1) weights
      sum += w[p];
    }
    // The first member dominates, so a perturbed query stays about its own query.
    w[0] += sum;
    sum *= 2;
    for (int p = 0; p < parts; p++) {
      float[] b = pool.get(p == 0 ? first : rnd.nextInt(pool.size()));
      for (int d = 0; d < dim; d++) {
        acc[d] += w[p] / sum * b[d];
      }
    }
    double norm = 0;
    for (int d = 0; d < dim; d++) {
      acc[d] += noise * gaussian(rnd);
      norm += acc[d] * acc[d];
    }
    norm = Math.sqrt(norm);
    float[] v = new float[dim];
    for (int d = 0; d < dim; d++) {
      v[d] = (float) (acc[d] / norm);
    }
    return v;
  }

  private static double gaussian(SplittableRandom rnd) {
    double u = 1 - rnd.nextDouble();
    double v = rnd.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Tenant index with weight 1/(k+1): a few large tenants and a long tail, as in a shared index. */
  private static int zipf(SplittableRandom rnd, int k) {
    double total = 0;
    for (int i = 0; i < k; i++) {
      total += 1.0 / (i + 1);
    }
    double x = rnd.nextDouble() * total;
    for (int i = 0; i < k; i++) {
      x -= 1.0 / (i + 1);
      if (x <= 0) {
        return i;
      }
    }
    return k - 1;
  }

  static long mix(long seed, long i) {
    long z = seed * 0x9E3779B97F4A7C15L + i;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
