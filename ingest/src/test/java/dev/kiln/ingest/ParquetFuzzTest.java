package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kiln.config.IngestConfig;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import dev.kiln.testing.FuzzTries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes {@link ParquetRowReader} (opened by {@link CorpusReaders}, footer included) with mutations of
 * two small Parquet files written by parquet-avro: text rows in several row groups, and rows with a
 * float-list vector column (see {@link DocumentMutations} for the edits). Every row becomes a record that
 * parses to a document or carries a {@link QuarantineReason}, within a time budget; nothing else is thrown.
 */
@AddLifecycleHook(FuzzTries.class)
class ParquetFuzzTest {
  static Path dir;
  static byte[] rows;
  static byte[] vectors;

  @BeforeContainer
  static void fixtures() throws Exception {
    dir = Files.createTempDirectory("kiln-parquet-fuzz");
    rows = Files.readAllBytes(ParquetRowReaderTest.write(dir.resolve("rows.parquet"), 10));
    vectors = Files.readAllBytes(ParquetRowReaderTest.writeVectors(dir.resolve("vectors.parquet"), true));
  }

  @AfterContainer
  static void cleanUp() throws Exception {
    DocumentMutations.deleteTree(dir);
  }

  @Property(tries = 40)
  void mutatedRows(@ForAll("edits") List<DocumentMutations.Edit> edits) {
    IngestConfig config = new IngestConfig();
    config.idField = "doc_id";
    config.textField = "body";
    assertReadsOrQuarantines(DocumentMutations.apply(rows, edits), new ReadOptions(4_000, 1 << 20, null, "body"),
        new RecordParser(List.of(LocalSourceFile.uri(dir)), config));
  }

  @Property(tries = 40)
  void mutatedVectors(@ForAll("edits") List<DocumentMutations.Edit> edits) {
    IngestConfig config = new IngestConfig();
    config.vectorField = "embedding";
    assertReadsOrQuarantines(DocumentMutations.apply(vectors, edits),
        new ReadOptions(4_000, 1 << 20, "embedding", null), new RecordParser(List.of(LocalSourceFile.uri(dir)),
            config, new SuppliedVectors(3, false, 1e-3)));
  }

  @Provide
  Arbitrary<List<DocumentMutations.Edit>> edits() {
    return DocumentMutations.editLists();
  }

  static void assertReadsOrQuarantines(byte[] bytes, ReadOptions options, RecordParser parser) {
    assertTimeoutPreemptively(DocumentMutations.BUDGET, () -> {
      Path file = Files.createTempFile(dir, "fuzz", ".parquet");
      try {
        Files.write(file, bytes);
        for (RawRecord r : LocalCorpus.readFile(file, InputFormat.AUTO, options)) {
          JsonLinesFuzzTest.assertParsesOrQuarantines(parser, r);
        }
      } finally {
        Files.deleteIfExists(file);
      }
    });
  }
}
