package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ChunkerConfig;
import dev.kiln.config.Counters;
import dev.kiln.embed.ModelSpec;
import dev.kiln.index.Analyzers;
import dev.kiln.model.ContentType;
import dev.kiln.model.ShardResult;
import dev.kiln.operators.JobCounters;
import dev.kiln.publish.ManifestFiles;
import dev.kiln.publish.ShardVerifier;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One whole build, as the user sees it: log the effective configuration, run the job, verify the
 * shards, write the manifest, publish, and end with the counters table. A failure at any step leaves
 * {@code CURRENT} untouched and removes the unpublished snapshot's files.
 */
public final class SnapshotBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotBuilder.class);

  private final BuildConfig config;
  private final PrintStream out;

  public SnapshotBuilder(BuildConfig config, PrintStream out) {
    this.config = config;
    this.out = out;
  }

  /** What a finished build produced. */
  public record BuildReport(String snapshotId, Manifest manifest, Counters counters, boolean published) {}

  public BuildReport build(StreamExecutionEnvironment env) throws Exception {
    long t0 = System.currentTimeMillis();
    BuildJob job = new BuildJob(config);
    out.println("Kiln build: effective configuration");
    config.describe().forEach(out::println);

    SnapshotLayout layout = job.layout();
    String id = SnapshotLayout.newSnapshotId();
    BuildJob.JobOutcome outcome;
    try {
      outcome = job.execute(env, id);
    } catch (Exception e) {
      discard(layout, id);
      throw e;
    }
    long tJob = System.currentTimeMillis();

    long documents = outcome.counter(JobCounters.DOCUMENTS);
    long embedded = outcome.counter(JobCounters.CHUNKS_EMBEDDED);
    Manifest manifest;
    try {
      if (documents == 0) {
        throw new SnapshotException("no documents were read from " + config.corpus
            + " (" + outcome.counter(JobCounters.RECORDS_READ) + " records, "
            + outcome.counter(JobCounters.QUARANTINED) + " quarantined): nothing to publish");
      }
      List<ShardResult> shards = ShardVerifier.verify(layout, id, config.shards, outcome.shards(), embedded);
      Manifest.DocstoreEntry docstore = config.chunker.parents.enabled ? ParentsDocstore.verify(layout, id,
          config.shards, outcome.counter(JobCounters.PARENTS), outcome.counter(JobCounters.PARENTS_WRITTEN)) : null;
      manifest = manifest(id, job.model(), shards, layout, outcome, docstore);
      new SnapshotPublisher(layout).writeManifest(manifest);
      if (config.publish) {
        new SnapshotPublisher(layout).publish(id);
      }
    } catch (RuntimeException | IOException e) {
      discard(layout, id);
      throw e;
    }
    long tEnd = System.currentTimeMillis();

    Counters c = new Counters()
        .put("snapshot", id + (config.publish ? " (published)" : " (not published)"))
        .put("records read", outcome.counter(JobCounters.RECORDS_READ))
        .put("documents", documents)
        .put("quarantined", outcome.counter(JobCounters.QUARANTINED))
        .put("chunks", outcome.counter(JobCounters.CHUNKS))
        .put("chunks embedded", embedded)
        .put("chunks truncated", outcome.counter(JobCounters.CHUNKS_TRUNCATED))
        .put("chunks written", outcome.counter(JobCounters.CHUNKS_WRITTEN))
        .put("chunks oversize (kept whole)", outcome.counter(JobCounters.CHUNKS_OVERSIZE))
        .put("parents written", outcome.counter(JobCounters.PARENTS_WRITTEN))
        .put("shards", config.shards)
        .putSeconds("parse busy", outcome.counter(JobCounters.TIME_PARSE) / 1_000_000)
        .putSeconds("chunk busy", outcome.counter(JobCounters.TIME_CHUNK) / 1_000_000)
        .putSeconds("embed busy", outcome.counter(JobCounters.TIME_EMBED) / 1_000_000)
        .putSeconds("shard write busy", outcome.counter(JobCounters.TIME_WRITE) / 1_000_000)
        .putSeconds("flink job wall", tJob - t0)
        .putSeconds("verify + manifest + publish", tEnd - tJob)
        .putSeconds("total wall", tEnd - t0);
    c.table("Kiln build: counters (busy = summed over subtasks)").forEach(out::println);
    return new BuildReport(id, manifest, c, config.publish);
  }

  private Manifest manifest(String id, ModelSpec model, List<ShardResult> shards, SnapshotLayout layout,
      BuildJob.JobOutcome outcome, Manifest.DocstoreEntry docstore) throws IOException {
    List<Manifest.ShardEntry> entries = new ArrayList<>();
    for (ShardResult r : shards) {
      Path dir = layout.shardDir(id, r.shard());
      entries.add(new Manifest.ShardEntry(r.shard(), SnapshotLayout.shardDirName(r.shard()),
          r.chunks(), r.documents(), ManifestFiles.describe(dir)));
    }
    Map<String, Long> counters = new LinkedHashMap<>();
    for (String name : List.of(JobCounters.RECORDS_READ, JobCounters.DOCUMENTS, JobCounters.QUARANTINED,
        JobCounters.CHUNKS, JobCounters.CHUNKS_EMBEDDED, JobCounters.CHUNKS_TRUNCATED,
        JobCounters.CHUNKS_OVERSIZE, JobCounters.PARENTS)) {
      counters.put(name, outcome.counter(name));
    }
    String parent = null;
    if (Files.isRegularFile(layout.current())) {
      parent = Files.readString(layout.current()).trim();
    }
    return new Manifest(Manifest.FORMAT_VERSION, id, Instant.now().toString(), parent,
        new Manifest.ModelInfo(model.name(), model.dimension(), model.pooling().name().toLowerCase(),
            model.normalize(), model.maxTokens()),
        chunkerInfo(model),
        new Manifest.IndexInfo(config.index.analyzer, config.index.bm25K1, config.index.bm25B, "dot_product",
            config.index.hnswM, config.index.hnswBeamWidth, Analyzers.CHINESE),
        counters, entries, docstore);
  }

  private Manifest.ChunkerInfo chunkerInfo(ModelSpec model) {
    ChunkerConfig c = config.chunker;
    Map<String, String> strategies = new LinkedHashMap<>();
    for (ContentType type : ContentType.values()) {
      strategies.put(type.name().toLowerCase(Locale.ROOT), c.strategyFor(type));
    }
    return new Manifest.ChunkerInfo(c.strategy, c.size, c.overlap, model.name(), c.fingerprint(model.name()),
        strategies, c.hardCap, c.breadcrumbPrefix, c.parents.enabled ? c.parents.size : null);
  }

  /** Removes an unpublished snapshot's directory; it was never visible, so nothing else can use it. */
  static void discard(SnapshotLayout layout, String id) {
    Path dir = layout.snapshotDir(id);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
      LOG.info("removed unpublished snapshot {}", dir);
    } catch (IOException e) {
      LOG.warn("could not remove unpublished snapshot {}: {}", dir, e.getMessage());
    }
  }
}
