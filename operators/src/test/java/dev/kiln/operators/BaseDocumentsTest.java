package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.DocFingerprintFile;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.route.ShardRouter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parse stage's view of a base snapshot answers the same from the shards' fingerprint files (each
 * document looked up in the shard its id routes to) as from their doc values (an older base without
 * the files): unchanged documents are found, an edited one, one under another id or another build's
 * settings are not.
 */
class BaseDocumentsTest {
  private static final String SETTINGS = "settings-1";
  private static final int SHARDS = 3;
  @TempDir Path tmp;

  private static Document doc(int i) {
    return new Document("doc-" + i, "Title " + i, "text of document " + i, Map.of(), "f");
  }

  /** Three shards of 60 documents, routed as the writers route them; every fourth has two chunks. */
  private List<String> base() throws IOException {
    List<List<Document>> byShard = new ArrayList<>();
    for (int s = 0; s < SHARDS; s++) {
      byShard.add(new ArrayList<>());
    }
    for (int i = 0; i < 60; i++) {
      byShard.get(ShardRouter.shardOf(doc(i).id(), SHARDS)).add(doc(i));
    }
    List<String> dirs = new ArrayList<>();
    for (int s = 0; s < SHARDS; s++) {
      Path dir = tmp.resolve("shard-" + s);
      try (ShardIndexWriter w = new ShardIndexWriter(dir, new IndexConfig(), 4)) {
        for (Document d : byShard.get(s)) {
          int chunks = Integer.parseInt(d.id().substring(4)) % 4 == 0 ? 2 : 1;
          for (int c = 0; c < chunks; c++) {
            Chunk chunk = new Chunk(d.id() + "#" + c, d.id(), c, "", d.text(), 0, d.text().length(), 4, Map.of())
                .withDocFingerprint(DocumentFingerprint.hex(d, SETTINGS));
            w.add(new EmbeddedChunk(chunk, new float[] {1, 0, 0, 0}));
          }
        }
      }
      dirs.add(dir.toString());
    }
    return dirs;
  }

  private static void assertAnswers(BaseDocuments base) {
    for (int i = 0; i < 60; i++) {
      assertTrue(base.unchanged(doc(i)), "doc-" + i);
    }
    Document edited = new Document("doc-5", "Title 5", "text of document 5, edited", Map.of(), "f");
    assertFalse(base.unchanged(edited), "an edited document");
    Document renamed = new Document("doc-500", "Title 5", "text of document 5", Map.of(), "f");
    assertFalse(base.unchanged(renamed), "the same contents under an id the base does not have");
    assertFalse(new BaseDocuments("b", base.shardDirs(), "settings-2").unchanged(doc(5)),
        "another build's settings");
  }

  @Test
  void theShardsFingerprintFilesAnswerAsTheirDocValues() throws Exception {
    List<String> dirs = base();
    assertFalse(DocFingerprintFile.present(Path.of(dirs.get(0))), "a shard writer writes the file, not the index");
    assertAnswers(new BaseDocuments("b", dirs, SETTINGS));

    for (String d : dirs) {
      DocFingerprintFile.write(Path.of(d));
    }
    // Only the files are left: the answers can come from nowhere else.
    for (String d : dirs) {
      try (Stream<Path> files = Files.list(Path.of(d))) {
        for (Path f : files.toList()) {
          if (!f.getFileName().toString().equals(DocFingerprintFile.NAME)) {
            Files.delete(f);
          }
        }
      }
    }
    BaseDocuments fromFiles = new BaseDocuments("b", dirs, SETTINGS);
    assertAnswers(fromFiles);
    long total = 0;
    for (String d : dirs) {
      total += DocFingerprintFile.open(Path.of(d)).size();
    }
    assertEquals(60, total, "one fingerprint a document, whatever its chunks");
  }
}
