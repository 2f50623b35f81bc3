package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.VectorEncoding;
import dev.kiln.config.ChunkerConfig;
import dev.kiln.config.Counters;
import dev.kiln.embed.ModelSpec;
import dev.kiln.index.Analyzers;
import dev.kiln.model.ContentType;
import dev.kiln.model.ShardResult;
import dev.kiln.operators.JobCounters;
import dev.kiln.internal.PausePoint;
import dev.kiln.publish.GateFailedException;
import dev.kiln.publish.ManifestFiles;
import dev.kiln.publish.PublishConflictException;
import dev.kiln.publish.RecallFloor;
import dev.kiln.publish.ShardMerger;
import dev.kiln.publish.ShardVerifier;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.publish.StagingHeartbeat;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.FlinkFileSystems;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.vectors.VectorFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One whole build, as the user sees it: log the effective configuration, run the job, verify the
 * shards, write the manifest, publish, and end with the counters table. A failure at any step leaves
 * {@code CURRENT} untouched and removes the unpublished snapshot's files; a build that loses the
 * compare-and-set on {@code CURRENT} keeps its complete snapshot and fails with a clear message.
 */
public final class SnapshotBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotBuilder.class);

  private final BuildConfig config;
  private final PrintStream out;
  private boolean force;

  public SnapshotBuilder(BuildConfig config, PrintStream out) {
    this.config = config;
    this.out = out;
  }

  /** Publish even if {@code CURRENT} no longer names the snapshot this build started from. */
  public SnapshotBuilder force(boolean force) {
    this.force = force;
    return this;
  }

  /** What a finished build produced. */
  public record BuildReport(String snapshotId, Manifest manifest, Counters counters, boolean published) {}

  public BuildReport build(StreamExecutionEnvironment env) throws Exception {
    long t0 = System.currentTimeMillis();
    FlinkFileSystems.initialize(config.filesystem);
    BuildJob job = new BuildJob(config);
    out.println("Kiln build: effective configuration");
    config.describe().forEach(out::println);

    SnapshotLayout layout = job.layout();
    // A remote root (s3://...) is published through its own storage (conditional PUT on S3), with the
    // same protocol as a local one; its shard files are verified from the local mirror (layout).
    SnapshotStore store = job.remote() ? RemoteStorages.store(config.snapshots, config.filesystem)
        : new SnapshotStore(layout.root());
    SnapshotMirror mirror = job.remote() ? new SnapshotMirror(store.storage(), config.snapshots, layout.root()) : null;
    SnapshotPublisher publisher = new SnapshotPublisher(store);
    // The base of the compare-and-set: this build publishes only over the snapshot it started from.
    String base = store.current().orElse(null);
    String id = SnapshotLayout.newSnapshotId();
    out.println("+ snapshot: " + id + " (CURRENT at start: " + (base == null ? "none" : base) + ")");
    ChangelogPlan changelog = config.changelog.enabled() ? ChangelogPlan.plan(config, store, job) : null;
    if (changelog != null) {
      out.println("+ changelog: topic " + changelog.topic() + ", base " + (changelog.base() == null ? "none (empty)"
          : changelog.base()) + ", offsets " + changelog.startOffsets() + " -> " + changelog.endOffsets() + " ("
          + changelog.records() + " records)");
    }
    // The marker's heartbeat tells gc on any host that this build is alive, however long it runs.
    StagingHeartbeat heartbeat = StagingHeartbeat.start(store.storage(), id, publisher.begin(id, base),
        StagingHeartbeat.DEFAULT_INTERVAL);
    BuildJob.JobOutcome outcome;
    try {
      outcome = job.execute(env, id, changelog);
    } catch (DetachedSubmission e) {
      throw e; // the job is still writing into the snapshot: leave it, STAGING, to gc
    } catch (Exception e) {
      heartbeat.close();
      discard(job, publisher, id);
      throw e;
    }
    long tJob = System.currentTimeMillis();

    long documents = outcome.counter(JobCounters.DOCUMENTS);
    long embedded = outcome.counter(JobCounters.CHUNKS_EMBEDDED);
    long reused = outcome.counter(JobCounters.CHUNKS_REUSED);
    long supplied = outcome.counter(JobCounters.CHUNKS_SUPPLIED);
    Manifest manifest;
    int segmentsBefore = 0;
    int segmentsAfter = 0;
    double minRecall = Double.NaN;
    GateFailedException gate = null;
    try {
      BadInputCheck.check(outcome.counter(JobCounters.RECORDS_READ), outcome.counter(JobCounters.QUARANTINED),
          config.ingest.maxBadFraction, outcome.quarantine(), outcome.quarantineDir());
      if (documents == 0 && changelog == null) {
        throw new SnapshotException("no documents were read from " + config.corpus
            + " (" + outcome.counter(JobCounters.RECORDS_READ) + " records, "
            + outcome.counter(JobCounters.QUARANTINED) + " quarantined): nothing to publish");
      }
      List<ShardResult> written = outcome.shards();
      if (job.remote()) {
        // Remote root: the writers uploaded their shards and the embed subtasks their stored vectors;
        // verify and describe local copies of them (the manifest then names only files already there).
        mirror.downloadShards(id);
        written = localized(written, job, id);
      }
      // A changelog build's shards hold the base's chunks minus those removed plus the fresh ones.
      long expected = embedded + reused + supplied + (changelog == null ? 0
          : changelog.baseChunks() - outcome.counter(JobCounters.CHANGELOG_CHUNKS_REMOVED));
      List<ShardResult> shards;
      try {
        shards = ShardVerifier.verify(layout, id, config.shards, written, expected);
      } catch (GateFailedException e) {
        gate = e; // every shard is there and opens, but the counts disagree: hold, do not discard
        shards = e.shards();
      }
      // Parents are checked (and, for a remote root, were downloaded with the shards) like the shards.
      Manifest.DocstoreEntry docstore = config.chunker.parents.enabled ? ParentsDocstore.verify(layout, id,
          config.shards, outcome.counter(JobCounters.PARENTS), outcome.counter(JobCounters.PARENTS_WRITTEN)) : null;
      if (docstore != null && changelog != null) {
        // The docstore also holds the base's parents of documents the changelog left alone.
        docstore = new Manifest.DocstoreEntry(docstore.directory(), docstore.format(),
            outcome.counter(JobCounters.CHANGELOG_PARENTS), docstore.files());
      }
      for (ShardResult r : shards) {
        if (job.remote()) {
          break; // writers already merged to index.max-segments; a merge here would need a re-upload
        }
        ShardMerger.MergeResult m = ShardMerger.merge(r.shard(), layout.shardDir(id, r.shard()), config.index);
        segmentsBefore += m.segmentsBefore();
        segmentsAfter += m.segmentsAfter();
      }
      if (config.index.recallProbeSamples > 0 && gate == null) {
        try {
          minRecall = RecallFloor.enforce(layout, id, shards.stream().map(ShardResult::shard).toList(), config.index);
        } catch (GateFailedException e) {
          gate = e;
        }
      }
      manifest = manifest(id, job, shards, layout, outcome, base, docstore);
      if (changelog != null) {
        for (String name : List.of(JobCounters.CHANGELOG_UPSERTS, JobCounters.CHANGELOG_DELETES,
            JobCounters.CHANGELOG_DELETE_UNKNOWN, JobCounters.CHANGELOG_SUPERSEDED, JobCounters.CHANGELOG_CHUNKS_REMOVED)) {
          manifest.counters().put(name, outcome.counter(name));
        }
        manifest = manifest.withChangelog(new Manifest.ChangelogInfo(changelog.topic(), changelog.endOffsets(),
            changelog.startOffsets(), changelog.base(), outcome.counter(JobCounters.CHANGELOG_UPSERTS),
            outcome.counter(JobCounters.CHANGELOG_DELETES), outcome.counter(JobCounters.CHANGELOG_DELETE_UNKNOWN)));
      }
      heartbeat.close();
      if (gate != null) {
        publisher.writeHeldManifest(manifest, gate.gate(), gate.getMessage());
      } else {
        publisher.writeManifest(manifest);
      }
      if (mirror != null) {
        // The local copy stays a complete snapshot too: --reuse-from and searches can start from it.
        new SnapshotPublisher(layout).writeManifest(manifest);
      }
    } catch (RuntimeException | IOException e) {
      heartbeat.close();
      discard(job, publisher, id);
      throw e;
    }
    if (gate != null) {
      // A failed gate is no reason to throw away hours of embedding: the snapshot stays, complete and
      // checksummed but HELD, and the message says how to go on.
      throw new SnapshotException(gate.getMessage() + ". Its shards and vectors are kept (snapshot " + id
          + " is HELD, not published): publish it anyway with 'kiln snapshots publish " + id + " --force' (every"
          + " file is still verified), or fix the cause and rerun the build with '--reuse-from " + id
          + "' to reuse its vectors");
    }
    PausePoint.reached("before-current");
    if (config.publish) {
      try {
        publisher.publish(id, base, force);
      } catch (PublishConflictException e) {
        throw e; // the snapshot is complete and verified: keep it, so it can still be published by hand
      } catch (RuntimeException e) {
        // The failure may follow a compare-and-set that succeeded: discard checks CURRENT first.
        discard(job, publisher, id);
        throw e;
      }
    }
    long tEnd = System.currentTimeMillis();

    Counters c = new Counters()
        .put("snapshot", id + (config.publish ? " (published)" : " (not published)"))
        .put("records read", outcome.counter(JobCounters.RECORDS_READ))
        .put("documents", documents)
        .put("quarantined", outcome.counter(JobCounters.QUARANTINED));
    outcome.quarantine().byReason().forEach((reason, n) -> c.put("  quarantined: " + reason, n));
    if (changelog != null) {
      c.put("changelog records (offset range)", changelog.records())
          .put("changelog upserts", outcome.counter(JobCounters.CHANGELOG_UPSERTS))
          .put("changelog deletes", outcome.counter(JobCounters.CHANGELOG_DELETES))
          .put("changelog_delete_unknown", outcome.counter(JobCounters.CHANGELOG_DELETE_UNKNOWN))
          .put("changelog ops superseded", outcome.counter(JobCounters.CHANGELOG_SUPERSEDED))
          .put("base chunks removed", outcome.counter(JobCounters.CHANGELOG_CHUNKS_REMOVED));
    }
    c
        .put("chunks", outcome.counter(JobCounters.CHUNKS))
        .put("chunks embedded", embedded)
        .put("chunks reused", reused)
        .put("chunks supplied (precomputed vectors)", supplied)
        .put("embedding models loaded", outcome.counter(JobCounters.MODEL_LOADS))
        .put("reused from", outcome.reuse().source().isEmpty() ? "none: " + outcome.reuse().reason()
            : outcome.reuse().source().snapshotId())
        .put("chunks truncated", outcome.counter(JobCounters.CHUNKS_TRUNCATED))
        .put("chunks written", outcome.counter(JobCounters.CHUNKS_WRITTEN))
        .put("chunks oversize (kept whole)", outcome.counter(JobCounters.CHUNKS_OVERSIZE))
        .put("parents written", outcome.counter(JobCounters.PARENTS_WRITTEN))
        .put("shards", config.shards)
        .put("segments (before merge → after)", segmentsBefore + " → " + segmentsAfter)
        .put("recall probe (min over shards)", Double.isNaN(minRecall) ? "off"
            : String.format(Locale.ROOT, "%.3f (floor %.2f, recall@%d, %d samples/shard)", minRecall,
                config.index.recallFloor, config.index.recallProbeK, config.index.recallProbeSamples))
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

  /** Shard results of a remote root, pointed at the local mirror after checking where they were uploaded. */
  private static List<ShardResult> localized(List<ShardResult> results, BuildJob job, String id) {
    List<ShardResult> local = new ArrayList<>();
    for (ShardResult r : results) {
      String expected = job.mirror().remoteSnapshotDir(id) + "/" + SnapshotLayout.shardDirName(r.shard());
      if (!expected.equals(r.directory())) {
        throw new SnapshotException("shard " + r.shard() + " was uploaded to " + r.directory() + ", expected " + expected);
      }
      local.add(new ShardResult(r.shard(), job.layout().shardDir(id, r.shard()).toString(), r.chunks(),
          r.documents(), r.writerSubtask()));
    }
    return local;
  }

  private Manifest manifest(String id, BuildJob job, List<ShardResult> shards, SnapshotLayout layout,
      BuildJob.JobOutcome outcome, String parent, Manifest.DocstoreEntry docstore) throws IOException {
    ModelSpec model = job.model();
    List<Manifest.ShardEntry> entries = new ArrayList<>();
    for (ShardResult r : shards) {
      Path dir = layout.shardDir(id, r.shard());
      entries.add(new Manifest.ShardEntry(r.shard(), SnapshotLayout.shardDirName(r.shard()),
          r.chunks(), r.documents(), ManifestFiles.describe(dir)));
    }
    Map<String, Long> counters = new LinkedHashMap<>();
    for (String name : List.of(JobCounters.RECORDS_READ, JobCounters.DOCUMENTS, JobCounters.QUARANTINED,
        JobCounters.CHUNKS, JobCounters.CHUNKS_EMBEDDED, JobCounters.CHUNKS_REUSED, JobCounters.CHUNKS_TRUNCATED,
        JobCounters.CHUNKS_OVERSIZE, JobCounters.PARENTS, JobCounters.CHUNKS_SUPPLIED, JobCounters.MODEL_LOADS)) {
      counters.put(name, outcome.counter(name));
    }
    return new Manifest(Manifest.FORMAT_VERSION, id, Instant.now().toString(), parent,
        new Manifest.ModelInfo(model.name(), model.dimension(), model.pooling().name().toLowerCase(),
            model.normalize(), model.maxTokens(), job.modelFingerprint(), model.directory()),
        chunkerInfo(model),
        new Manifest.IndexInfo(config.index.analyzer, config.index.bm25K1, config.index.bm25B, "dot_product",
            config.index.hnswM, config.index.hnswBeamWidth, Analyzers.CHINESE,
            vectorEncodingKey(config)),
        counters, entries,
        new Manifest.QuarantineInfo(outcome.counter(JobCounters.QUARANTINED), outcome.quarantine().byReason(),
            outcome.counter(JobCounters.QUARANTINED) > 0 ? outcome.quarantineDir() : null),
        embeddings(id, job, layout, outcome),
        docstore);
  }

  private Manifest.ChunkerInfo chunkerInfo(ModelSpec model) {
    ChunkerConfig c = config.chunker;
    Map<String, String> strategies = new LinkedHashMap<>();
    for (ContentType type : ContentType.values()) {
      strategies.put(type.name().toLowerCase(Locale.ROOT), c.strategyFor(type));
    }
    // The fingerprint is the settings part of every content key: tokenizer named as the key names it.
    return new Manifest.ChunkerInfo(c.strategy, c.size, c.overlap, model.name(), c.fingerprint(model.source()),
        strategies, c.hardCap, c.breadcrumbPrefix, c.parents.enabled ? c.parents.size : null);
  }

  /** The stored vectors this build leaves for the next one. */
  private static Manifest.EmbeddingsInfo embeddings(String id, BuildJob job, SnapshotLayout layout,
      BuildJob.JobOutcome outcome) throws IOException {
    Path dir = layout.snapshotDir(id).resolve(VectorFiles.DIRECTORY);
    List<Manifest.FileEntry> files = Files.isDirectory(dir) ? ManifestFiles.describe(dir) : List.of();
    return new Manifest.EmbeddingsInfo(VectorFiles.DIRECTORY, job.modelFingerprint(), job.model().dimension(),
        outcome.counter(JobCounters.CHUNKS_EMBEDDED), outcome.counter(JobCounters.CHUNKS_REUSED),
        outcome.reuse().source().snapshotId(), files, outcome.counter(JobCounters.CHUNKS_SUPPLIED));
  }

  /**
   * Removes an unpublished snapshot's directory, unless {@code CURRENT} names it (checked under the
   * root's lock by {@link SnapshotPublisher#discardUnpublished}).
   */
  static void discard(BuildJob job, SnapshotPublisher publisher, String id) {
    if (!publisher.discardUnpublished(id)) {
      return;
    }
    LOG.info("removed unpublished snapshot {}", publisher.store().layout().snapshotDir(id));
    if (job.remote()) {
      try {
        new LocalSnapshotStorage(job.layout().root()).deleteTree(SnapshotLayout.snapshotKey(id));
      } catch (IOException e) {
        LOG.warn("could not remove the local copy of unpublished snapshot {}: {}", id, e.getMessage());
      }
    }
  }

  /** Quantised encodings only: absent means float32, and older readers refuse the key. */
  private static String vectorEncodingKey(BuildConfig config) {
    VectorEncoding encoding = VectorEncoding.parse(config.index.vectorEncoding);
    return encoding.quantized() ? encoding.label() : null;
  }
}
