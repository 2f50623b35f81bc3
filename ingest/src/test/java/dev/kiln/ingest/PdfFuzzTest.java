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

/** Fuzzes {@link PdfReader} with mutations of a small PDF (see {@link DocumentMutations}). */
@AddLifecycleHook(FuzzTries.class)
class PdfFuzzTest {
  static Path dir;
  static byte[] fixture;

  @BeforeContainer
  static void fixture() throws Exception {
    dir = Files.createTempDirectory("kiln-pdf-fuzz");
    fixture = Files.readAllBytes(DocumentFixtures.pdf(dir.resolve("fixture/a.pdf"), "Glazes", "Bea Glazer",
        List.of("Cone 6 glazes\n\nMelt at 1220 C.", "Firing\n\nSlow cool."), "Chapter", 0, "Firing", 1));
  }

  @AfterContainer
  static void cleanUp() throws Exception {
    DocumentMutations.deleteTree(dir);
  }

  @Property(tries = 300)
  void mutatedPdf(@ForAll("edits") List<DocumentMutations.Edit> edits) {
    DocumentMutations.assertReadsOrQuarantines(dir, InputFormat.PDF, DocumentMutations.apply(fixture, edits));
  }

  @Provide
  Arbitrary<List<DocumentMutations.Edit>> edits() {
    return DocumentMutations.editLists();
  }
}
