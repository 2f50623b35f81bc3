package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.cli.Kiln;
import dev.kiln.config.BuildConfig;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.search.context.AssembledContext;
import dev.kiln.search.context.ContextBlock;
import dev.kiln.search.parents.ParentExpander;
import dev.kiln.search.parents.ParentHit;
import dev.kiln.search.parents.ParentStore;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A parent-child build over Markdown, HTML and JSON lines with the default per-type strategies: the
 * manifest records the chunker settings, fingerprint and docstore; verification covers the docstore;
 * hits carry breadcrumbs and parent ids; {@code --expand parents} answers with deduplicated parents;
 * HTML page furniture is never indexed.
 */
class ChunkingBuildITCase {
  @TempDir static Path work;
  static Path root;
  static SnapshotBuilder.BuildReport report;

  @BeforeAll
  static void build() throws Exception {
    root = work.resolve("snapshots");
    Path fixture = Path.of(ChunkingBuildITCase.class.getResource("/chunking").toURI());
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(fixture.toString());
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 32;
    config.chunker.overlap = 6;
    config.chunker.hardCap = 64;
    config.chunker.parents.enabled = true;
    config.chunker.parents.size = 96;
    report = new SnapshotBuilder(config.validate(),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).build(BuildJob.localEnvironment(2));
  }

  @Test
  void manifestRecordsChunkerSettingsAndAVerifiedDocstore() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    Manifest m = store.open(report.snapshotId());
    Manifest.ChunkerInfo c = m.chunker();
    assertEquals("auto", c.strategy());
    assertEquals(Map.of("text", "recursive", "markdown", "markdown", "html", "html"), c.strategies());
    assertEquals(16, c.fingerprint().length());
    assertEquals(64, c.hardCap());
    assertEquals(96, c.parentSize());
    assertEquals("smartcn", m.index().chineseAnalyzer());
    Manifest.DocstoreEntry docstore = m.docstore();
    assertNotNull(docstore);
    assertEquals("parents", docstore.directory());
    assertEquals(m.counters().get("parents"), docstore.parents());
    assertTrue(docstore.parents() >= 3, "one or more parents per document: " + docstore.parents());
    assertFalse(docstore.files().isEmpty());

    // Verification covers the docstore: a changed byte in one of its files is found.
    Manifest.FileEntry first = docstore.files().get(0);
    Path file = new SnapshotLayout(root).snapshotDir(m.id()).resolve(docstore.directory()).resolve(first.name());
    byte[] original = Files.readAllBytes(file);
    byte[] changed = original.clone();
    changed[changed.length / 2] ^= 1;
    try {
      Files.write(file, changed);
      List<String> problems = store.verify(m);
      assertEquals(1, problems.size(), problems.toString());
      assertTrue(problems.get(0).startsWith("parents/" + first.name() + ": sha256"), problems.toString());
    } finally {
      Files.write(file, original);
    }
    assertEquals(List.of(), store.verify(m));
  }

  @Test
  void hitsCarryBreadcrumbsAndParentIds() {
    try (Searcher searcher = Searcher.open(root)) {
      SearchHit lens = searcher.search("Fresnel lens prisms bull's-eye", SearchMode.BM25, 1).results().get(0);
      assertEquals("handbook.md", lens.docId());
      assertEquals("Lighthouse Handbook > The Lamp > The Fresnel Lens", lens.metadata().get("breadcrumb"));
      assertTrue(lens.metadata().get("parent_id").startsWith("handbook.md#p"), lens.metadata().toString());

      SearchHit graft = searcher.search("scion rootstock cambium", SearchMode.HYBRID, 1).results().get(0);
      assertEquals("site/orchard.html", graft.docId());
      assertEquals("Orchard Care > Grafting", graft.metadata().get("breadcrumb"));
      // Scripts, navigation and footers are not part of the indexed page.
      assertEquals(List.of(), searcher.bm25("zzyzx", 10));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void contextAssemblyPacksEachParentOnceInsteadOfItsChildren() throws Exception {
    try (Searcher searcher = Searcher.open(root)) {
      List<SearchHit> children =
          searcher.search("lighthouse lamp keeper wick lens fog", SearchMode.BM25, 10).results();
      AssembledContext ctx = searcher.context(
          SearchRequest.of("lighthouse lamp keeper wick lens fog", SearchMode.BM25, 10), 4000);
      assertFalse(ctx.blocks().isEmpty());
      Set<String> texts = new HashSet<>();
      for (ContextBlock b : ctx.blocks()) {
        assertTrue(texts.add(b.text()), "a parent is packed once: " + b.chunkId());
      }
      // Every packed passage is a parent: it contains the text of at least one retrieved child (a
      // short section's only child can be the whole parent), and some parent is larger than a child.
      for (ContextBlock b : ctx.blocks()) {
        assertTrue(children.stream().anyMatch(c -> b.text().contains(c.text())),
            "block " + b.chunkId() + " is not a parent of a retrieved child");
      }
      assertTrue(ctx.blocks().stream().anyMatch(b -> children.stream()
          .anyMatch(c -> b.text().contains(c.text()) && b.text().length() > c.text().length())),
          "parents, not the children themselves, are packed");
      assertTrue(ctx.blocks().size() < children.size(), "children sharing a parent collapse into one passage");
    }
  }

  @Test
  void expandParentsReturnsEachParentOnceWithItsChildren() throws Exception {
    try (Searcher searcher = Searcher.open(root);
        ParentStore store = ParentStore.open(root, searcher.manifest())) {
      assertEquals(searcher.manifest().docstore().parents(), store.size());
      List<SearchHit> children = searcher.search("lighthouse lamp keeper wick lens fog", SearchMode.BM25, 40).results();
      List<ParentHit> parents = ParentExpander.expand(children, store, 10);
      Set<String> ids = new HashSet<>();
      int childCount = 0;
      for (ParentHit p : parents) {
        assertTrue(ids.add(p.parentId()), "parent twice: " + p.parentId());
        childCount += p.childIds().size();
        for (String childId : p.childIds()) {
          SearchHit child = children.stream().filter(h -> h.chunkId().equals(childId)).findFirst().orElseThrow();
          assertTrue(p.text().contains(child.text()), "child " + childId + " lies in parent " + p.parentId());
        }
      }
      assertTrue(parents.size() < childCount, "several children share a parent: " + parents.size() + " < " + childCount);
    }
  }

  @Test
  void searchCommandExpandsParentsAsJson() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    int code;
    try {
      System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
      code = Kiln.execute("search", "--snapshots", root.toString(), "--mode", "bm25", "--k", "2",
          "--expand", "parents", "--json", "fog horn thirty seconds");
    } finally {
      System.setOut(saved);
    }
    assertEquals(0, code);
    JsonNode json = new ObjectMapper().readTree(buf.toString(StandardCharsets.UTF_8));
    assertEquals("parents", json.get("expand").asText());
    JsonNode top = json.get("results").get(0);
    assertTrue(top.get("parent_id").asText().startsWith("handbook.md#p"), top.toString());
    assertTrue(top.get("text").asText().contains("Ships counted the interval"), top.toString());
    assertTrue(top.get("child_ids").size() >= 1);
  }
}
