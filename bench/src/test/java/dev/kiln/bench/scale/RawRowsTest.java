package dev.kiln.bench.scale;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.route.ShardRouter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.generic.GenericRecord;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fair raw baseline: its primitive-float Parquet reader gives exactly what the generic Avro record
 * gives, and the raw step with a thread per writer indexes every record once, into the shard Kiln's
 * router picks, with its vector.
 */
class RawRowsTest {
  @TempDir Path dir;

  @Test
  void theConverterReaderGivesEveryFieldAndEveryFloatTheAvroRecordGives() throws Exception {
    Path corpus = dir.resolve("corpus");
    new SyntheticCorpus(SyntheticCorpusTest.base(dir), 7, 0.01).write(120, corpus, 0, null);
    Path file = corpus.resolve("part-0000.parquet");
    List<RawRows.Row> rows = new ArrayList<>();
    assertEquals(120, RawRows.read(file, rows::add));
    try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file))
        .withConf(new PlainParquetConfiguration()).build()) {
      int i = 0;
      for (GenericRecord g; (g = reader.read()) != null; i++) {
        RawRows.Row r = rows.get(i);
        assertEquals(g.get("_id").toString(), r.id());
        assertEquals(g.get("title").toString(), r.title());
        assertEquals(g.get("text").toString(), r.text());
        assertEquals(g.get("tenant").toString(), r.tenant());
        assertEquals(g.get("doc_type").toString(), r.docType());
        @SuppressWarnings("unchecked")
        List<Float> v = (List<Float>) g.get("vector");
        float[] expected = new float[v.size()];
        for (int d = 0; d < expected.length; d++) {
          expected[d] = v.get(d);
        }
        assertArrayEquals(expected, r.vector(), r.id());
      }
      assertEquals(120, i);
    }
  }

  @Test
  void theRawStepIndexesEachRecordOnceIntoTheShardKilnRoutesItTo() throws Exception {
    Path corpus = dir.resolve("corpus");
    int n = 700; // several batches a shard
    new SyntheticCorpus(SyntheticCorpusTest.base(dir), 11, 0.01).write(n, corpus, 0, null);
    Path out = dir.resolve("raw");
    Path result = dir.resolve("result.json");
    RawLuceneStep.main(new String[] {result.toString(), corpus.toString(), out.toString(), "2", "2", "16", "100", "16", "1"});
    JsonNode r = new ObjectMapper().readTree(result.toFile());
    assertEquals(n, r.get("documents").asLong());
    long[] expected = new long[2];
    List<RawRows.Row> rows = new ArrayList<>();
    RawRows.read(corpus.resolve("part-0000.parquet"), rows::add);
    for (RawRows.Row row : rows) {
      expected[ShardRouter.shardOf(row.id(), 2)]++;
    }
    for (int s = 0; s < 2; s++) {
      assertEquals(expected[s], r.get("shard_documents").get(s).asLong(), "shard " + s);
      try (FSDirectory d = FSDirectory.open(out.resolve("shard-" + s)); DirectoryReader reader = DirectoryReader.open(d)) {
        assertEquals(expected[s], reader.numDocs());
        assertEquals(1, reader.leaves().size(), "forced to one segment");
        long vectors = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
          FloatVectorValues values = leaf.reader().getFloatVectorValues("vector");
          vectors += values.size();
        }
        assertEquals(expected[s], vectors);
        for (RawRows.Row row : rows) {
          if (ShardRouter.shardOf(row.id(), 2) == s) {
            assertEquals(1, new IndexSearcher(reader).count(new TermQuery(new Term("doc_id", row.id()))), row.id());
          }
        }
      }
    }
  }
}
