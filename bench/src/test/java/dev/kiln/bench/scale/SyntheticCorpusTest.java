package dev.kiln.bench.scale;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scale benchmark's corpus: reproducible from its seed, unit vectors, and a changed run that differs only where chosen. */
class SyntheticCorpusTest {
  @TempDir Path dir;

  static BaseData base(Path dir) throws Exception {
    Path corpus = dir.resolve("real.jsonl");
    Files.writeString(corpus, """
        {"_id": "1", "title": "Glacier flow", "text": "Glaciers creep downhill under their own weight."}
        {"_id": "2", "title": "Kelp", "text": "Giant kelp grows fast in cold water, half a metre a day."}
        {"_id": "3", "title": "Lenses", "text": "A Fresnel lens focuses a lamp into a beam."}
        """);
    Random rnd = new Random(1);
    List<float[]> docs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      docs.add(unit(rnd, 8));
    }
    return new BaseData(docs, List.of("how do glaciers move"), List.of(unit(rnd, 8)), TextModel.of(corpus), "m");
  }

  static float[] unit(Random rnd, int dim) {
    float[] v = new float[dim];
    double n = 0;
    for (int d = 0; d < dim; d++) {
      v[d] = (float) rnd.nextGaussian();
      n += v[d] * v[d];
    }
    for (int d = 0; d < dim; d++) {
      v[d] /= (float) Math.sqrt(n);
    }
    return v;
  }

  static List<String> rows(Path dir) throws Exception {
    List<String> out = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(f))
            .withConf(new PlainParquetConfiguration()).build()) {
          for (GenericRecord g; (g = r.read()) != null; ) {
            out.add(g.toString());
          }
        }
      }
    }
    return out;
  }

  @Test
  void theSameSeedWritesTheSameCorpusOfUnitVectorsAndAChangedRunDiffersOnlyInTheChosenRecords() throws Exception {
    BaseData base = base(dir);
    SyntheticCorpus a = new SyntheticCorpus(base, 42, 0.01);
    a.write(3000, dir.resolve("a"), 0, dir.resolve("a.f32"));
    new SyntheticCorpus(base, 42, 0.01).write(3000, dir.resolve("b"), 0, null);
    long changed = a.write(3000, dir.resolve("c"), 0.01, null);
    List<String> ra = rows(dir.resolve("a"));
    assertEquals(3000, ra.size());
    assertEquals(ra, rows(dir.resolve("b")));
    assertEquals(3000L * 8 * 4, Files.size(dir.resolve("a.f32")));
    FloatBuffer fb = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("a.f32")))
        .order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    for (int r = 0; r < 3000; r++) {
      double n = 0;
      for (int d = 0; d < 8; d++) {
        float f = fb.get();
        n += f * f;
      }
      assertEquals(1.0, n, 1e-5, "row " + r);
    }
    List<String> rc = rows(dir.resolve("c"));
    int differ = 0;
    for (int i = 0; i < ra.size(); i++) {
      boolean chosen = a.changed(i, 0.01);
      assertEquals(chosen, !ra.get(i).equals(rc.get(i)), "record " + i);
      differ += chosen ? 1 : 0;
    }
    assertEquals(changed, differ);
    assertTrue(changed > 10 && changed < 60, "about 1 % of 3000 changed: " + changed);
    assertNotEquals(new SyntheticCorpus(base, 43, 0.01).queryVectors(1).get(0)[0], a.queryVectors(1).get(0)[0]);
    for (float[] q : a.queryVectors(5)) {
      double n = 0;
      for (float f : q) {
        n += f * f;
      }
      assertEquals(1.0, n, 1e-5);
    }
  }

  @Test
  void eachRoundOfAFirstPartChangeChangesAboutOnePercentAfreshInTheFirstFileOnly() throws Exception {
    SyntheticCorpus a = new SyntheticCorpus(base(dir), 42, 0.01);
    long n = SyntheticCorpus.ROWS_PER_FILE + 2000; // two files: the second must stay as written
    Path corpus = dir.resolve("corpus");
    a.write(n, corpus, 0, null);
    List<String> original = rows(corpus);
    byte[] second = Files.readAllBytes(corpus.resolve("part-0001.parquet"));
    long first = a.changeFirstPart(n, corpus, 0.01, 1);
    List<String> round1 = rows(corpus);
    long again = a.changeFirstPart(n, corpus, 0.01, 2);
    List<String> round2 = rows(corpus);
    assertEquals(differing(original, round1), first);
    // A fresh change: round 2 rewrites records round 1 left alone, so exactly its own count differ from round 1.
    assertEquals(differing(round1, round2), again);
    for (long changed : List.of(first, again)) {
      assertTrue(changed > n / 200 && changed < n / 50, "about 1 % of " + n + " changed: " + changed);
    }
    assertArrayEquals(second, Files.readAllBytes(corpus.resolve("part-0001.parquet")));
  }

  private static long differing(List<String> a, List<String> b) {
    assertEquals(a.size(), b.size());
    long d = 0;
    for (int i = 0; i < a.size(); i++) {
      d += a.get(i).equals(b.get(i)) ? 0 : 1;
    }
    return d;
  }
}
