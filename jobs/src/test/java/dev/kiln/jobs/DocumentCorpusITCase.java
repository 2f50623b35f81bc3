package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.ingest.DocumentFixtures;
import dev.kiln.ingest.HostileDocuments;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PDF, DOCX and PPTX files (one gzipped) next to Markdown, built on a real mini-cluster and searched:
 * the right document and page or slide come back, document properties are filterable metadata, and the
 * hostile files — password-protected PDF and DOCX, a scanned PDF without text, a truncated PDF and a
 * truncated PPTX, a zip bomb DOCX (50 MB of XML declared as 100 bytes) and a PDF of nested form
 * XObjects — are quarantined under their own reasons while the build goes on.
 */
class DocumentCorpusITCase {
  @TempDir static Path work;
  static Path root;
  static SnapshotBuilder.BuildReport report;

  static final List<String> MANUAL = List.of(
      "Kiln firing manual\n\nThis manual explains how a kiln is loaded and fired safely.",
      "Bisque firing happens at cone 04.\nThe ware is dried for two days first.\n\nCandling removes the last"
          + " water before the kiln climbs past boiling.",
      "Glaze firing reaches cone 6 in oxidation.\n\nCooling slowly through quartz inversion prevents dunting.");

  @BeforeAll
  static void build() throws Exception {
    Path corpus = Files.createDirectories(work.resolve("corpus"));
    Path pdf = DocumentFixtures.pdf(corpus.resolve("manuals/kiln.pdf"), "Kiln Firing Manual", "Ada Potter", MANUAL,
        "Introduction", 0, "Firing", 1);
    DocumentFixtures.docx(corpus.resolve("guides/studio.docx"), "Studio Guide", "Bea Glazer",
        "Welcome to the community studio.",
        "# Clay bodies",
        "Stoneware is fired to cone 6 and becomes vitreous and watertight.",
        "# Safety",
        "Wear a respirator when mixing dry glaze materials such as silica.");
    Path deck = DocumentFixtures.pptx(work.resolve("raku.pptx"), "Raku Workshop", "Cy Thrower",
        "Raku workshop", "An afternoon of raku firing outdoors",
        "Reduction chamber", "Pots go into sawdust while red hot\nThe smoke blackens the bare clay body");
    Files.createDirectories(corpus.resolve("decks"));
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(corpus.resolve("decks/raku.pptx.gz")))) {
      Files.copy(deck, out);
    }
    Files.writeString(corpus.resolve("notes.md"), "# Wedging\n\nWedging clay removes air pockets before throwing.\n");

    Path bad = Files.createDirectories(corpus.resolve("bad"));
    DocumentFixtures.encryptedPdf(bad.resolve("secret.pdf"), "Confidential crawl glaze recipe.");
    DocumentFixtures.encryptOffice(DocumentFixtures.docx(work.resolve("plain.docx"), "Secret", "",
        "Confidential shino recipe."), bad.resolve("secret.docx"));
    DocumentFixtures.imageOnlyPdf(bad.resolve("scan.pdf"), 3);
    DocumentFixtures.truncated(pdf, bad.resolve("cut.pdf"), 0.6);
    DocumentFixtures.truncated(deck, bad.resolve("cut.pptx"), 0.6);
    HostileDocuments.forgedSizeDocx(bad.resolve("bomb.docx"), 50L << 20, 100);
    HostileDocuments.nestedFormsPdf(bad.resolve("forms.pdf"), 12, 4);

    root = work.resolve("snapshots");
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.ingest.maxBadFraction = 0.9;
    report = new SnapshotBuilder(config, new PrintStream(OutputStream.nullOutputStream()))
        .build(BuildJob.localEnvironment(2));
  }

  @Test
  void badDocumentsAreQuarantinedUnderTheirOwnReasonsAndCounted() throws Exception {
    Manifest m = new SnapshotStore(root).open(report.snapshotId());
    Map<String, Long> reasons = m.quarantine().byReason();
    assertEquals(Map.of("encrypted", 2L, "no_text_layer", 1L, "corrupt_document", 3L, "too_costly", 1L), reasons);
    assertEquals(4L, m.counters().get("documents"), "PDF, DOCX, gzipped PPTX and Markdown");
    assertEquals(11L, m.counters().get("records.read"));

    Map<String, String> byFile = new TreeMap<>();
    ObjectMapper json = new ObjectMapper();
    try (Stream<Path> files = Files.list(root.resolve("quarantine").resolve(report.snapshotId()))) {
      for (Path file : files.toList()) {
        for (String l : Files.readAllLines(file)) {
          JsonNode r = json.readTree(l);
          String uri = r.get("source_uri").asText();
          byFile.put(uri.substring(uri.lastIndexOf('/') + 1), r.get("reason").asText());
        }
      }
    }
    assertEquals(Map.of("secret.pdf", "encrypted", "secret.docx", "encrypted", "scan.pdf", "no_text_layer",
        "cut.pdf", "corrupt_document", "cut.pptx", "corrupt_document", "bomb.docx", "corrupt_document",
        "forms.pdf", "too_costly"), byFile);
  }

  @Test
  void aQueryFindsTheRightDocumentAndPage() throws Exception {
    try (Searcher searcher = Searcher.open(root)) {
      SearchHit bisque = top(searcher, "candling removes water before bisque firing");
      assertEquals("manuals/kiln.pdf", bisque.docId());
      assertEquals("Kiln Firing Manual", bisque.title());
      assertEquals("Firing > Page 2", bisque.metadata().get("breadcrumb"));
      assertEquals("Ada Potter", bisque.metadata().get("author"));
      assertEquals("3", bisque.metadata().get("pages"));
      assertEquals("2026-01-05T10:00:00Z", bisque.metadata().get("doc_created"));

      SearchHit dunting = top(searcher, "quartz inversion dunting");
      assertEquals("manuals/kiln.pdf", dunting.docId());
      assertEquals("Firing > Page 3", dunting.metadata().get("breadcrumb"));

      SearchHit raku = top(searcher, "sawdust smoke blackens clay");
      assertEquals("decks/raku.pptx.gz", raku.docId());
      assertEquals("Slide 2: Reduction chamber", raku.metadata().get("breadcrumb"));
      assertEquals("2", raku.metadata().get("slides"));

      SearchHit respirator = top(searcher, "respirator silica dust");
      assertEquals("guides/studio.docx", respirator.docId());
      assertEquals("Safety", respirator.metadata().get("breadcrumb"));
    }
  }

  @Test
  void documentPropertiesFilterLikeAnyMetadata() throws Exception {
    try (Searcher searcher = Searcher.open(root)) {
      List<SearchHit> hits = searcher.bm25("firing", 20, MetadataFilter.parse(List.of("author=Cy Thrower")));
      assertFalse(hits.isEmpty());
      assertTrue(hits.stream().allMatch(h -> h.docId().equals("decks/raku.pptx.gz")), hits.toString());
    }
  }

  @Test
  void nothingOfAQuarantinedDocumentIsSearchable() throws Exception {
    try (Searcher searcher = Searcher.open(root)) {
      List<String> ids = new ArrayList<>();
      for (String q : List.of("confidential recipe", "crawl shino", "scanned words", "row 1234")) {
        searcher.bm25(q, 10).forEach(h -> ids.add(h.docId()));
      }
      assertTrue(ids.stream().noneMatch(id -> id.startsWith("bad/")), ids.toString());
    }
  }

  private static SearchHit top(Searcher searcher, String query) {
    List<SearchHit> hits = searcher.search(query, SearchMode.HYBRID, 3).results();
    assertFalse(hits.isEmpty(), "no results for " + query);
    return hits.get(0);
  }
}
