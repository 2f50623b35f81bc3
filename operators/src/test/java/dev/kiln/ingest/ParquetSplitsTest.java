package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.Document;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Parquet file cut into byte ranges by {@link CorpusFileEnumerator}, each read by its own reader
 * through {@link CorpusFileFormat} as the job reads it: every row once, at its own offset (the files are
 * {@link ParquetRowReaderTest}'s).
 */
class ParquetSplitsTest {
  @TempDir Path dir;

  @Test
  void rowsBecomeDocumentsWithConfiguredColumnsAndMetadataAcrossSplits() throws Exception {
    Path file = ParquetRowReaderTest.write(dir.resolve("docs.parquet"), 12);
    long size = Files.size(file);
    assertTrue(CorpusFiles.splitCount(InputFormat.AUTO, 4096, dir) > 1, "file of " + size + " bytes");
    List<RawRecord> read = CorpusFiles.read(InputFormat.AUTO, 4096, dir);
    assertEquals(12, read.size(), "every row once, whichever split owns its row group");
    RecordParser parser = ParquetRowReaderTest.parser(dir);
    read.forEach(r -> assertNull(r.problem(), r.payload()));
    assertEquals(12, read.stream().map(RawRecord::payload).distinct().count());
    Document d = parser.parse(read.stream().filter(r -> r.payload().contains("\"p5\"")).findFirst().orElseThrow());
    assertEquals("p5", d.id());
    assertEquals("Title 5", d.title());
    assertTrue(d.text().startsWith("Body of parquet row 5 "));
    assertEquals("globex", d.metadata().get("tenant"));
    assertEquals("en", d.metadata().get("lang"));
    assertEquals("5", d.metadata().get("row"));
  }

  /** Duplicate ids are resolved by (file, offset): rows of one row group must not share an offset. */
  @Test
  void everyRowsOffsetIsItsNumberInTheFileWhicheverSplitReadsIt() throws Exception {
    ParquetRowReaderTest.write(dir.resolve("docs.parquet"), 12);
    List<RawRecord> read = CorpusFiles.read(InputFormat.AUTO, 4096, dir);
    assertTrue(CorpusFiles.splitCount(InputFormat.AUTO, 4096, dir) > 1);
    assertEquals(12, read.size());
    for (RawRecord r : read) {
      assertTrue(r.payload().contains("\"p" + r.offset() + "\""), "row " + r.offset() + ": " + r.payload());
    }
  }
}
