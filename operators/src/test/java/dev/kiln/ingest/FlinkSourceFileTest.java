package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.testutils.TestFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file of a split as the readers see it ({@link FlinkSourceFile}): a local one the same as the
 * ingest module's own {@link LocalSourceFile} (its tests' document ids are the job's), a file on another
 * file system copied through Flink's.
 */
class FlinkSourceFileTest {
  @TempDir Path dir;

  @Test
  void aLocalFileIsTheSameFileItIsToTheIngestModulesTests() throws Exception {
    Path file = Files.writeString(Files.createDirectories(dir.resolve("sub dir")).resolve("a.jsonl"), "{}\n");
    org.apache.flink.core.fs.Path path = org.apache.flink.core.fs.Path.fromLocalFile(file.toFile());
    long size = Files.size(file);
    long modified = Files.getLastModifiedTime(file).toMillis();
    FlinkSourceFile flink = new FlinkSourceFile(new FileSourceSplit("0", path, 0, size, modified, size));
    LocalSourceFile local = new LocalSourceFile(file);
    assertEquals(flink.uri(), local.uri());
    assertEquals(org.apache.flink.core.fs.Path.fromLocalFile(dir.toFile()).toString(), LocalSourceFile.uri(dir));
    assertEquals(flink.name(), local.name());
    assertEquals(flink.size(), local.size());
    assertEquals(flink.modified(), local.modified());
    assertEquals(flink.localFile(), local.localFile());
  }

  @Test
  void aPdfOnAnotherFileSystemIsCopiedThroughFlinksFileSystem() throws Exception {
    Path pdf = DocumentFixtures.pdf(dir.resolve("remote.pdf"), "Remote", "", PdfReaderTest.PAGES);
    // Flink's test:// file system is local underneath but not file://, so the reader must not take the
    // path as a local file: it copies through FileSystem.open, which the test file system counts.
    org.apache.flink.core.fs.Path remote = new org.apache.flink.core.fs.Path("test://" + pdf.toAbsolutePath());
    long size = Files.size(pdf);
    TestFileSystem.resetStreamOpenCounter();
    List<RawRecord> records = CorpusFiles.read(new CorpusFileFormat(InputFormat.AUTO, 1 << 20, 1L << 30),
        new FileSourceSplit("0", remote, 0, size, 0, size));
    assertEquals(1, TestFileSystem.getNumtimeStreamOpened());
    assertNull(records.get(0).problem(), records.get(0).payload());
    assertTrue(records.get(0).payload().contains("Candling removes"), records.get(0).payload());
  }
}
