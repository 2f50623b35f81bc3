package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A parser library that exhausts the heap or the stack on one document costs that document, not the task. */
class DocumentFileReaderTest {
  @TempDir Path dir;

  private RawRecord read(Path file, DocumentReader reader) throws Exception {
    try (DocumentFileReader r = new DocumentFileReader(new LocalSourceFile(file), InputFormat.DOCX,
        ReadOptions.withMaxRecordBytes(1 << 20), reader)) {
      List<RawRecord> records = r.readBatch();
      assertEquals(1, records.size());
      return records.get(0);
    }
  }

  @Test
  void anOutOfMemoryErrorInOneParseQuarantinesThatDocumentAsTooLarge() throws Exception {
    Path file = DocxReaderTest.guide(dir.resolve("guide.docx"));
    // A real OutOfMemoryError from the JVM, without filling the heap of the test's JVM.
    RawRecord r = read(file, (f, out) -> {
      long[] huge = new long[Integer.MAX_VALUE];
      out.property("length", huge.length);
    });
    assertEquals(QuarantineReason.TOO_LARGE, r.problem(), r.payload());
    assertTrue(r.payload().contains("ran out of memory"), r.payload());
  }

  @Test
  void aStackOverflowInOneParseQuarantinesThatDocumentAsCorrupt() throws Exception {
    Path file = DocxReaderTest.guide(dir.resolve("guide.docx"));
    // A naive recursive parser on brackets nested ten million deep, as a library parses nested structures.
    String nested = "[".repeat(10_000_000);
    RawRecord r = read(file, (f, out) -> out.property("depth", depth(nested, 0)));
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, r.problem(), r.payload());
    assertTrue(r.payload().contains("nested too deeply"), r.payload());
    // The next document is read as ever.
    assertEquals(null, read(file, new DocxReader()).problem());
  }

  @Test
  void otherErrorsStillFailTheTask() throws Exception {
    Path file = DocxReaderTest.guide(dir.resolve("guide.docx"));
    assertThrows(LinkageError.class, () -> read(file, (f, out) -> {
      throw new LinkageError("a broken class path is no document's fault");
    }));
  }

  private static int depth(String nested, int at) {
    return at < nested.length() && nested.charAt(at) == '[' ? 1 + depth(nested, at + 1) : 0;
  }
}
