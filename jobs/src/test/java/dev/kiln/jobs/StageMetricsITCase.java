package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.StageProgress;
import dev.kiln.snapshot.Manifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embed and write stages' live Flink metrics, as a metrics reporter sees them
 * ({@code metrics.reporter.kiln_capture.factory.class}), agree with the job's own counters: a first
 * build embeds everything (one chunk twice by content), a second one reuses every vector.
 */
class StageMetricsITCase {
  @TempDir static Path work;
  static Manifest first;
  static Manifest second;
  static Map<String, Long> firstEmbed;
  static Map<String, Long> firstWrite;
  static Map<String, Long> secondEmbed;
  static Set<String> firstDevices;
  static Set<String> firstCommitted;
  static Set<String> firstPublished;
  static Set<String> firstCommitMillis;
  static Set<String> secondDevices;
  static long firstRateCount;
  static long corpusBytes;
  static Map<String, Long> firstProgressDone;
  static Map<String, Long> firstProgressTotal;
  static Map<String, Long> firstProgressEta;

  @BeforeAll
  static void buildTwice() throws Exception {
    Path corpus = work.resolve("corpus.jsonl");
    Files.write(corpus, List.of(
        line("tides", "Tides", "The moon's pull raises two bulges of sea water that the earth turns under."),
        line("kelp", "Kelp forests", "Giant kelp grows half a metre a day in cold, nutrient-rich coastal water."),
        line("origami", "Paper folding", "Origami crease patterns fold a single uncut square into a crane."),
        line("turbine", "Wind turbine yaw", "The yaw drive turns the nacelle so the rotor faces into the wind."),
        // Same title and text under another id: the same content key, so its vector is stored once.
        line("tides-copy", "Tides", "The moon's pull raises two bulges of sea water that the earth turns under.")));
    corpusBytes = Files.size(corpus);
    first = build(corpus);
    firstProgressDone = progress(StageProgress.DONE);
    firstProgressTotal = progress(StageProgress.TOTAL);
    firstProgressEta = progress(StageProgress.ETA);
    firstEmbed = sums(".embed.");
    firstWrite = sums(".write-shards.");
    firstDevices = gauges(".embed.", "device");
    firstCommitted = gauges(".commit.", "snapshot");
    firstPublished = gauges(".commit.", "published");
    firstCommitMillis = gauges(".commit.", "commitMillis");
    firstRateCount = CapturingReporter.METERS.entrySet().stream()
        .filter(e -> e.getKey().contains(".embed.") && e.getKey().endsWith(".chunksPerSecond"))
        .mapToLong(e -> e.getValue().getCount()).sum();
    second = build(corpus);
    secondEmbed = sums(".embed.");
    secondDevices = gauges(".embed.", "device");
  }

  static Manifest build(Path corpus) throws Exception {
    CapturingReporter.COUNTERS.clear();
    CapturingReporter.GAUGES.clear();
    CapturingReporter.METERS.clear();
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = work.resolve("snapshots").toString();
    config.shards = 2;
    config.parallelism = 2;
    config.embed.device = "auto";
    config.incremental = "off"; // reuse of stored vectors is under test: every document goes to the embed stage
    return new SnapshotBuilder(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2, CapturingReporter.configure(new Configuration()))).manifest();
  }

  /** Counters of one operator, summed over its subtasks, by metric name. */
  static Map<String, Long> sums(String operator) {
    Map<String, Long> out = new HashMap<>();
    CapturingReporter.COUNTERS.forEach((id, c) -> {
      if (id.contains(operator)) {
        out.merge(id.substring(id.lastIndexOf('.') + 1), c.getCount(), Long::sum);
      }
    });
    return out;
  }

  static Set<String> gauges(String operator, String name) {
    Set<String> out = new TreeSet<>();
    CapturingReporter.GAUGES.forEach((id, g) -> {
      if (id.contains(operator) && id.endsWith("." + name)) {
        out.add(String.valueOf(g.getValue()));
      }
    });
    return out;
  }

  /** A progress gauge summed over each stage's subtasks, by stage; a stage whose subtasks say -1 sums to -1. */
  static Map<String, Long> progress(String name) {
    Map<String, Long> out = new HashMap<>();
    for (String stage : List.of("parse", "embed", "write-shards")) {
      CapturingReporter.GAUGES.forEach((id, g) -> {
        if (id.contains("." + stage + ".") && id.endsWith("." + name)) {
          long v = ((Number) g.getValue()).longValue();
          out.merge(stage, v, (a, b) -> a < 0 || b < 0 ? -1 : a + b);
        }
      });
    }
    return out;
  }

  static String line(String id, String title, String text) {
    return "{\"_id\": \"" + id + "\", \"title\": \"" + title + "\", \"text\": \"" + text + "\"}";
  }

  @Test
  void theCommitStageReportsThePublishedSnapshotAndItsDuration() {
    assertEquals(Set.of(first.id()), firstCommitted, "the committer's snapshot gauge names the snapshot it published");
    assertEquals(Set.of("1"), firstPublished);
    assertEquals(1, firstCommitMillis.size(), firstCommitMillis.toString());
    assertTrue(Long.parseLong(firstCommitMillis.iterator().next()) >= 0, firstCommitMillis.toString());
  }

  @Test
  void progressGaugesCountEachStagesWorkAgainstTheTotalItKnows() {
    // Parse: every byte of the corpus, of the listed total split in even shares between its 2 subtasks.
    assertEquals(corpusBytes, firstProgressDone.get("parse"), firstProgressDone.toString());
    long total = firstProgressTotal.get("parse");
    assertTrue(total >= corpusBytes && total <= corpusBytes + 1, total + " vs " + corpusBytes);
    assertEquals(0, firstProgressEta.get("parse"), "a finished stage has no time left");
    // Embed and write: every chunk leaving the stage / written; their input's size is not known to them.
    assertEquals(5, firstProgressDone.get("embed"), firstProgressDone.toString());
    assertEquals(5, firstProgressDone.get("write-shards"));
    assertEquals(-1, firstProgressTotal.get("embed"), firstProgressTotal.toString());
    assertEquals(-1, firstProgressEta.get("embed"));
  }

  @Test
  void embedMetricsMatchTheJobsCounters() {
    long embedded = first.counters().get(JobCounters.CHUNKS_EMBEDDED);
    assertEquals(5, first.counters().get(JobCounters.CHUNKS), first.counters().toString());
    assertEquals(embedded, firstEmbed.get("chunksEmbedded"), firstEmbed.toString());
    assertEquals(4, embedded, "the copied document shares its content key: embedded once");
    assertEquals(0, firstEmbed.get("chunksReused"));
    assertEquals(1, firstEmbed.get("chunksDeduplicated"), firstEmbed.toString());
    assertEquals(1, first.counters().get(JobCounters.CHUNKS_DEDUPLICATED));
    assertEquals(1, first.embeddings().deduplicated());
    assertEquals(first.counters().get(JobCounters.CHUNKS_TRUNCATED), firstEmbed.get("chunksTruncated"));
    assertEquals(5, firstRateCount, "the chunks/s meter counts every chunk leaving the stage");
  }

  @Test
  void theDeviceGaugeNamesTheSlotsDeviceOnceTheModelIsLoaded() {
    // This machine's CPU build sees no GPU; every slot that embedded says so.
    assertEquals(Set.of("cpu"), firstDevices);
    // A fully reused build never loads the model.
    assertEquals(Set.of("none"), secondDevices);
  }

  @Test
  void aSecondBuildReusesEveryVectorAndTheMetricsSaySo() {
    assertEquals(0, second.counters().get(JobCounters.CHUNKS_EMBEDDED), second.counters().toString());
    assertEquals(second.counters().get(JobCounters.CHUNKS_REUSED), secondEmbed.get("chunksReused"));
    assertEquals(5, secondEmbed.get("chunksReused"));
    assertEquals(0, secondEmbed.get("chunksEmbedded"));
  }

  @Test
  void writeMetricsCountEveryChunkAndTheShardsBytes() {
    assertEquals(5, firstWrite.get("chunksWritten"), firstWrite.toString());
    assertEquals(2, firstWrite.get("shardsWritten"));
    long indexBytes = first.shards().stream().flatMap(s -> s.files().stream()).mapToLong(f -> f.size()).sum();
    assertTrue(firstWrite.get("bytesWritten") > 0, firstWrite.toString());
    // Merging after the job rewrites segments, so the manifest's sizes are near, not equal, to what was written.
    assertTrue(firstWrite.get("bytesWritten") > indexBytes / 4, firstWrite + " vs manifest " + indexBytes);
  }
}
