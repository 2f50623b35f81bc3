package dev.kiln.ingest;

import static dev.kiln.ingest.ExtractedFiles.chunkWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.InputFormat;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.poi.poifs.filesystem.POIFSFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real PPTX files written with POI, read as the build reads them. */
class PptxReaderTest {
  @TempDir Path dir;

  static Path deck(Path file) throws Exception {
    return DocumentFixtures.pptx(file, "", "Cy Thrower",
        "Raku workshop", "An afternoon of raku firing\nnotes: welcome everyone and check the gas",
        "Reduction chamber", "Pots go into sawdust while red hot\nThe smoke blackens bare clay",
        "Schedule", "| Step | Minutes\n| Heat | 25\n| Reduce | 10");
  }

  @Test
  void slidesAreSectionsNamedByNumberAndTitle() throws Exception {
    Document doc = ExtractedFiles.document(dir, deck(dir.resolve("raku.pptx")));
    assertEquals("raku.pptx", doc.id());
    assertEquals("Raku workshop", doc.title(), "no title property: the first slide's title");
    assertEquals("Cy Thrower", doc.metadata().get("author"));
    assertEquals("3", doc.metadata().get("slides"));
    List<Chunk> chunks = ExtractedFiles.chunks(doc);
    assertEquals("Slide 2: Reduction chamber", chunkWith(chunks, "sawdust while red hot").breadcrumb());
    assertEquals("Slide 1: Raku workshop > Notes", chunkWith(chunks, "check the gas").breadcrumb());
    assertEquals("Slide 3: Schedule", chunkWith(chunks, "Reduce | 10").breadcrumb());
    for (Chunk c : chunks) {
      assertFalse(c.text().contains("sawdust") && c.text().contains("Reduce"), "a chunk spans two slides: " + c);
    }
  }

  @Test
  void aGzippedDeckIsRead() throws Exception {
    Path plain = deck(dir.resolve("plain.pptx"));
    Path gz = Files.createDirectories(dir.resolve("gz")).resolve("raku.pptx.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(plain, out);
    }
    assertEquals(InputFormat.PPTX, InputFormat.forFileName("raku.PPTX.gz"));
    List<Chunk> chunks = ExtractedFiles.chunks(ExtractedFiles.document(dir.resolve("gz"), gz));
    assertEquals("Slide 2: Reduction chamber", chunkWith(chunks, "smoke blackens").breadcrumb());
  }

  @Test
  void encryptedAndTruncatedDecksAreQuarantinedWithTheirReasons() throws Exception {
    Path plain = deck(dir.resolve("plain.pptx"));
    assertEquals(QuarantineReason.ENCRYPTED,
        ExtractedFiles.problem(DocumentFixtures.encryptOffice(plain, dir.resolve("secret.pptx"))));
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT,
        ExtractedFiles.problem(DocumentFixtures.truncated(plain, dir.resolve("cut.pptx"), 0.7)));
    // A legacy binary file renamed: OLE2 without an encrypted package.
    Path legacy = dir.resolve("legacy.pptx");
    try (POIFSFileSystem fs = new POIFSFileSystem();
        OutputStream out = Files.newOutputStream(legacy)) {
      fs.createDocument(new ByteArrayInputStream(new byte[64]), "PowerPoint Document");
      fs.writeFilesystem(out);
    }
    String problem = ExtractedFiles.problem(legacy);
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, problem);
    assertTrue(ExtractedFiles.record(legacy).payload().contains("OLE2"));
  }
}
