package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
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
 * Fuzzes {@link DocxReader} with mutations of a small DOCX (see {@link DocumentMutations}): of the file's
 * bytes, and of the bytes inside one of its ZIP entries.
 */
@AddLifecycleHook(FuzzTries.class)
class DocxFuzzTest {
  static Path dir;
  static byte[] fixture;

  @BeforeContainer
  static void fixture() throws Exception {
    dir = Files.createTempDirectory("kiln-docx-fuzz");
    fixture = Files.readAllBytes(DocumentFixtures.docx(dir.resolve("fixture/a.docx"), "Studio Guide", "Bea Glazer",
        "# Glazes", "Cone 6 glazes melt at 1220 C.", "## Firing", "| cone | temp", "| 6 | 1220"));
  }

  @AfterContainer
  static void cleanUp() throws Exception {
    DocumentMutations.deleteTree(dir);
  }

  @Property(tries = 20)
  void mutatedDocx(@ForAll("edits") List<DocumentMutations.Edit> edits) {
    DocumentMutations.assertReadsOrQuarantines(dir, InputFormat.DOCX, DocumentMutations.apply(fixture, edits));
  }

  @Property(tries = 20)
  void mutatedEntryOfDocx(@ForAll int entry, @ForAll("edits") List<DocumentMutations.Edit> edits) {
    DocumentMutations.assertReadsOrQuarantines(dir, InputFormat.DOCX,
        DocumentMutations.applyInsideZip(fixture, entry, edits));
  }

  @Provide
  Arbitrary<List<DocumentMutations.Edit>> edits() {
    return DocumentMutations.editLists();
  }
}
