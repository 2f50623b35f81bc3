package dev.kiln.jobs;

import static dev.kiln.jobs.UnchangedFilesITCase.docs;
import static dev.kiln.jobs.UnchangedFilesITCase.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.snapshot.Manifest;
import dev.kiln.testing.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A document a changelog build wrote, identical to its corpus record, survives the corpus builds after
 * it. The corpus build over the changelog snapshot reads every file (the changelog listed none) and
 * keeps that document as unchanged, its record read from a.jsonl while its chunks say a Kafka partition.
 * Kept so, the document would be lost by the next corpus build that leaves a.jsonl unread: no unread
 * file keeps a chunk positioned in Kafka. The writer copies its chunks with the file position instead
 * ({@code incremental.relocated}), so the next build may leave a.jsonl unread, and keeps the document.
 */
class ChangelogThenUnchangedFilesITCase {
  static final String TOPIC = "kiln-changes";
  static final String X = "a03";

  @TempDir static Path work;
  static EmbeddedKafka kafka;
  static Path corpus;
  static Path root;
  static long hourAgo;
  static Manifest afterChangelog;
  static Manifest corpusOverChangelog;
  static Manifest next;
  static String nextOutput;

  @BeforeAll
  static void corpusThenChangelogThenCorpusTwice() throws Exception {
    kafka = new EmbeddedKafka(work.resolve("kafka"));
    kafka.createTopic(TOPIC, 2);
    corpus = Files.createDirectories(work.resolve("corpus"));
    root = work.resolve("snapshots");
    hourAgo = System.currentTimeMillis() - 3_600_000;
    write("a.jsonl", docs("a", 8), 0);
    write("b.jsonl", docs("b", 8), 0);
    build(c -> {}, new ByteArrayOutputStream());

    // The changelog upserts X exactly as the corpus has it: same title and text, no metadata.
    String text = "Document " + X + " of file a mentions the word marker" + X + " once.";
    try (KafkaProducer<String, String> p = kafka.producer()) {
      kafka.send(p, TOPIC, X, "{\"op\": \"upsert\", \"id\": \"" + X + "\", \"title\": \"Title of " + X
          + "\", \"text\": \"" + text + "\"}");
    }
    afterChangelog = build(c -> {
      c.changelog.topic = TOPIC;
      c.changelog.bootstrap = kafka.bootstrap();
    }, new ByteArrayOutputStream());
    corpusOverChangelog = build(c -> {}, new ByteArrayOutputStream());

    List<String> b = docs("b", 8);
    b.set(5, line("b05", "Rewritten: document b05 now covers the salinity of the Baltic Sea."));
    write("b.jsonl", b, 60_000);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    next = build(c -> {}, out);
    nextOutput = out.toString(StandardCharsets.UTF_8);
  }

  @AfterAll
  static void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  static void write(String name, List<String> lines, long later) throws Exception {
    Files.write(corpus.resolve(name), lines);
    Files.setLastModifiedTime(corpus.resolve(name), FileTime.fromMillis(hourAgo + later));
  }

  static Manifest build(Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return build(root, tweak, out);
  }

  static Manifest build(Path snapshots, Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(corpus.toString(), snapshots.toString(), tweak, out);
  }

  @Test
  void theChangelogsDocumentWasKeptAsUnchangedByTheCorpusBuildOverIt() {
    assertEquals(1L, afterChangelog.changelog().upserts());
    Map<String, Long> c = corpusOverChangelog.counters();
    assertEquals(16L, c.get(JobCounters.INCREMENTAL_UNCHANGED), "X included: " + c);
    assertEquals(0L, c.get(JobCounters.RECORDS_UNREAD), "the changelog snapshot listed no files: " + c);
    assertEquals(1L, c.get(JobCounters.INCREMENTAL_RELOCATED), "X's chunks now say a.jsonl, not Kafka: " + c);
    assertEquals(0L, c.get(JobCounters.SHARDS_WITHOUT_POSITIONS), c.toString());
  }

  @Test
  void theNextCorpusBuildLeavesTheUnchangedFileUnreadAndLosesNothing() throws Exception {
    assertEquals(8L, next.counters().get(JobCounters.RECORDS_UNREAD), "a.jsonl, X's file: " + next.counters());
    Path fullRoot = work.resolve("full");
    Manifest full = build(fullRoot, c -> c.incremental = "off", new ByteArrayOutputStream());
    Map<String, String> contents = IncrementalBuildITCase.contents(root, next);
    assertTrue(contents.keySet().stream().anyMatch(id -> id.startsWith(X + "#")), "X is still there: " + nextOutput);
    assertEquals(IncrementalBuildITCase.contents(fullRoot, full), contents);
  }
}
