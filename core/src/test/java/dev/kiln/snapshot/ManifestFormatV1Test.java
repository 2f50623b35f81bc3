package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Golden manifests of format version 1 ({@code src/test/resources/golden/format-v1/}): the oldest
 * shape (before {@code quarantine}, {@code embeddings}, the chunker fingerprint and the Chinese
 * analyzer were added within v1), a parent-child corpus build with every optional section written by
 * the build of 2026-12-03, and a changelog build. The current reader must read all three through the
 * same path the searcher uses, and the current writer must write the full one back unchanged, so a
 * field renamed or dropped by accident fails here rather than on a user's published snapshot.
 */
class ManifestFormatV1Test {
  private static final String GOLDEN_ID = "20261203T172758Z-9f64fe";

  @TempDir Path root;

  private static byte[] golden(String name) throws IOException {
    try (InputStream in = ManifestFormatV1Test.class.getResourceAsStream("/golden/format-v1/" + name)) {
      assertNotNull(in, "missing golden file " + name);
      return in.readAllBytes();
    }
  }

  /** Reads a golden manifest the way every reader does: from {@code snapshots/<id>/manifest.json}. */
  private Manifest read(String name) throws IOException {
    SnapshotLayout layout = new SnapshotLayout(root);
    Files.createDirectories(layout.manifest(GOLDEN_ID).getParent());
    Files.write(layout.manifest(GOLDEN_ID), golden(name));
    return new SnapshotStore(root).manifest(GOLDEN_ID);
  }

  @Test
  void readsTheFullParentChildManifest() throws IOException {
    Manifest m = read("manifest-full.json");
    assertEquals(1, m.formatVersion());
    assertEquals(GOLDEN_ID, m.id());
    assertNull(m.parent());
    assertEquals("all-minilm-l6-v2-q", m.model().name());
    assertEquals(384, m.model().dimension());
    assertEquals("sha256:e5b4909c6aa46c05dfb0a61a2aea41d790ff9cf87bd4bd06e4457e5e03cb0927", m.model().fingerprint());
    assertEquals("945de111d9ebf5a3", m.chunker().fingerprint());
    assertEquals(Map.of("text", "recursive", "markdown", "markdown", "html", "html"), m.chunker().strategies());
    assertEquals(60, m.chunker().parentSize());
    assertEquals("smartcn", m.index().chineseAnalyzer());
    assertEquals(16, m.index().hnswM());
    assertEquals(6L, m.totalChunks());
    assertEquals(List.of(0, 1), m.shards().stream().map(Manifest.ShardEntry::shard).toList());
    assertEquals("shard-00000", m.shards().get(0).directory());
    assertEquals(4, m.shards().get(0).files().size());
    assertEquals(Map.of("missing_id", 1L), m.quarantine().byReason());
    assertEquals(6L, m.embeddings().embedded());
    assertEquals("part-00000.parquet", m.embeddings().files().get(0).name());
    assertEquals(10775L, m.embeddings().files().get(0).size());
    assertEquals("kiln-parents-lucene-v1", m.docstore().format());
    assertEquals(3L, m.docstore().parents());
    assertEquals("shard-00001/segments_1", m.docstore().files().get(7).name());
    assertNull(m.changelog());
  }

  @Test
  void readsTheOldestV1ManifestWithoutOptionalSections() throws IOException {
    Manifest m = read("manifest-oldest.json");
    assertEquals(GOLDEN_ID, m.id());
    assertNull(m.quarantine());
    assertNull(m.embeddings());
    assertNull(m.docstore());
    assertNull(m.changelog());
    assertNull(m.chunker().fingerprint());
    assertNull(m.chunker().strategies());
    assertNull(m.index().chineseAnalyzer());
    assertEquals(24, m.chunker().size());
    assertEquals(2, m.shards().size());
  }

  @Test
  void readsTheChangelogSection() throws IOException {
    Manifest m = read("manifest-changelog.json");
    Manifest.ChangelogInfo c = m.changelog();
    assertNotNull(c);
    assertEquals("docs-changelog", c.topic());
    assertEquals(Map.of("0", 9L, "1", 4L), c.offsets());
    assertEquals(Map.of("0", 7L, "1", 4L), c.startOffsets());
    assertEquals("20261202T160439Z-27e419", c.base());
    assertEquals(1L, c.upserts());
    assertEquals(1L, c.deletes());
    assertEquals("20261202T160439Z-27e419", m.parent());
    assertNull(m.docstore());
  }

  @Test
  void corpusFilesIsAnOptionalSectionThatOtherEditsKeep() throws IOException {
    Manifest full = read("manifest-full.json");
    assertNull(full.corpusFiles(), "absent in manifests written before it");
    assertFalse(SnapshotStore.json().readTree(SnapshotStore.json().writeValueAsBytes(full)).has("corpus_files"));
    Manifest.CorpusFilesEntry entry = new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 4, 2, 122320, 301,
        "ab".repeat(32));
    Manifest with = full.withCorpusFiles(entry);
    JsonNode tree = SnapshotStore.json().readTree(SnapshotStore.json().writeValueAsBytes(with));
    assertEquals("{\"file\":\"corpus-files.tsv\",\"files\":4,\"kept\":2,\"bytes\":122320,\"size\":301,\"sha256\":\""
        + "ab".repeat(32) + "\"}", tree.get("corpus_files").toString());
    assertEquals(with, SnapshotStore.json().treeToValue(tree, Manifest.class));
    assertEquals(entry, with.withChangelog(null).corpusFiles());
    assertEquals(entry, with.withRangeFields(Map.of("version", "long")).corpusFiles());
    assertNull(with.withCorpusFiles(null).corpusFiles());
  }

  /** Paths under {@code expected} whose value {@code actual} lacks or changes (objects compared key by key). */
  private static void missing(JsonNode expected, JsonNode actual, String path, List<String> out) {
    if (expected.isObject() && actual != null && actual.isObject()) {
      expected.fieldNames().forEachRemaining(f -> missing(expected.get(f), actual.get(f), path + "/" + f, out));
    } else if (expected.isArray() && actual != null && actual.isArray() && expected.size() == actual.size()) {
      for (int i = 0; i < expected.size(); i++) {
        missing(expected.get(i), actual.get(i), path + "/" + i, out);
      }
    } else if (!expected.equals(actual)) {
      out.add(path + ": " + expected + " -> " + actual);
    }
  }

  @Test
  void writesTheFullManifestBackFieldForField() throws IOException {
    JsonNode goldenTree = SnapshotStore.json().readTree(golden("manifest-full.json"));
    Manifest m = SnapshotStore.json().treeToValue(goldenTree, Manifest.class);
    // Through bytes, as a manifest is written: a tree of the record would hold floats where the parsed
    // golden file holds doubles, and node equality is type-sensitive.
    JsonNode written = SnapshotStore.json().readTree(SnapshotStore.json().writeValueAsBytes(m));
    // Fields added within v1 since the golden file (optional, ignored by older readers) are allowed;
    // every field the golden file has must come back with its value.
    List<String> lost = new ArrayList<>();
    missing(goldenTree, written, "", lost);
    assertEquals(List.of(), lost, "the v1 writer no longer writes what v1 readers read");
    assertTrue(written.has("embeddings") && written.has("docstore") && written.has("quarantine"));
  }
}
