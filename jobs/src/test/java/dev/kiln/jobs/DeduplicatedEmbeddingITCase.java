package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.index.ShardSchema;
import dev.kiln.operators.JobCounters;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Identical chunks are embedded once per build: a document copied 300 times and a long document
 * that repeats one paragraph cost one inference per distinct content key, every copy is still indexed,
 * and each copy carries the vector an independent build of the same text gives.
 */
class DeduplicatedEmbeddingITCase {
  private static final String PARAGRAPH = "Rotate the on-call pager every Monday at nine and escalate to the"
      + " secondary after fifteen minutes without an acknowledgement; write the incident timeline as you go.";

  @TempDir static Path work;
  static Manifest manifest;
  static Path root;

  @BeforeAll
  static void build() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      lines.add(line("copy-" + i, "Terms of service", "By using this site you agree to the terms of service."));
    }
    for (int i = 0; i < 12; i++) {
      lines.add(line("doc-" + i, "Distinct " + i, "A distinct document number " + i + " about topic " + (i * 7)));
    }
    lines.add(line("runbook", "Runbook", String.join("\\n\\n", Collections.nCopies(40, PARAGRAPH))));
    root = work.resolve("snapshots");
    manifest = build(lines, root);
  }

  static Manifest build(List<String> lines, Path snapshots) throws Exception {
    Path corpus = Files.createTempFile(work, "corpus", ".jsonl");
    Files.write(corpus, lines);
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = snapshots.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 48;
    config.chunker.overlap = 0;
    return new SnapshotBuilder(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
  }

  static String line(String id, String title, String text) {
    return "{\"_id\": \"" + id + "\", \"title\": \"" + title + "\", \"text\": \"" + text + "\"}";
  }

  /** Distinct content keys over every shard of the snapshot. */
  static Set<String> distinctKeys() throws Exception {
    Set<String> keys = new HashSet<>();
    Path dir = root.resolve("snapshots").resolve(manifest.id());
    for (Manifest.ShardEntry s : manifest.shards()) {
      try (FSDirectory d = FSDirectory.open(dir.resolve(s.directory())); DirectoryReader r = DirectoryReader.open(d)) {
        for (LeafReaderContext leaf : r.leaves()) {
          Terms terms = leaf.reader().terms(ShardSchema.CONTENT_KEY);
          if (terms == null) {
            continue;
          }
          TermsEnum it = terms.iterator();
          for (BytesRef t = it.next(); t != null; t = it.next()) {
            keys.add(t.utf8ToString());
          }
        }
      }
    }
    return keys;
  }

  @Test
  void everyDistinctContentKeyIsEmbeddedOnceAndEveryCopyIsIndexed() throws Exception {
    long chunks = manifest.counters().get(JobCounters.CHUNKS);
    long embedded = manifest.counters().get(JobCounters.CHUNKS_EMBEDDED);
    long deduplicated = manifest.embeddings().deduplicated();
    int distinct = distinctKeys().size();
    assertEquals(distinct, embedded, manifest.counters().toString());
    assertEquals(chunks - distinct, deduplicated, manifest.counters().toString());
    assertTrue(deduplicated >= 299 + 30, "300 copies and a paragraph repeated 40 times: " + deduplicated);
    assertEquals(chunks, manifest.totalChunks(), "every copy is indexed");
    assertEquals(deduplicated, manifest.counters().get(JobCounters.CHUNKS_DEDUPLICATED));
  }

  @Test
  void aCopyCarriesTheVectorAnIndependentBuildOfTheSameTextGives() throws Exception {
    Path alone = work.resolve("alone");
    build(List.of(line("copy-0", "Terms of service", "By using this site you agree to the terms of service.")), alone);
    float[] reference;
    try (Searcher s = Searcher.open(alone)) {
      reference = s.chunkVector("copy-0#0").orElseThrow();
    }
    try (Searcher s = Searcher.open(root)) {
      for (String id : List.of("copy-0#0", "copy-137#0", "copy-299#0")) {
        assertArrayEquals(reference, s.chunkVector(id).orElseThrow(), 0f, id);
      }
    }
  }
}
