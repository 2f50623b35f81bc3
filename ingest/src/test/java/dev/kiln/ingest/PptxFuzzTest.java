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
 * Fuzzes {@link PptxReader} with mutations of a small PPTX (see {@link DocumentMutations}): of the file's
 * bytes, and of the bytes inside one of its ZIP entries.
 */
@AddLifecycleHook(FuzzTries.class)
class PptxFuzzTest {
  static Path dir;
  static byte[] fixture;

  @BeforeContainer
  static void fixture() throws Exception {
    dir = Files.createTempDirectory("kiln-pptx-fuzz");
    fixture = Files.readAllBytes(DocumentFixtures.pptx(dir.resolve("fixture/a.pptx"), "Studio Deck", "Bea Glazer",
        "Glazes", "Cone 6 glazes\nnotes: melt at 1220 C.", "Firing", "| cone | temp\n| 6 | 1220"));
  }

  @AfterContainer
  static void cleanUp() throws Exception {
    DocumentMutations.deleteTree(dir);
  }

  @Property(tries = 30)
  void mutatedPptx(@ForAll("edits") List<DocumentMutations.Edit> edits) {
    DocumentMutations.assertReadsOrQuarantines(dir, InputFormat.PPTX, DocumentMutations.apply(fixture, edits));
  }

  @Property(tries = 30)
  void mutatedEntryOfPptx(@ForAll int entry, @ForAll("edits") List<DocumentMutations.Edit> edits) {
    DocumentMutations.assertReadsOrQuarantines(dir, InputFormat.PPTX,
        DocumentMutations.applyInsideZip(fixture, entry, edits));
  }

  @Provide
  Arbitrary<List<DocumentMutations.Edit>> edits() {
    return DocumentMutations.editLists();
  }
}
