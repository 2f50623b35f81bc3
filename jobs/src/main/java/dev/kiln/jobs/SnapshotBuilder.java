package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.config.Counters;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.fs.FlinkFileSystems;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.publish.BuildRunningException;
import dev.kiln.publish.RunningBuilds;
import dev.kiln.publish.ShardSizeAdvice;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.publish.StagingHeartbeat;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One whole build, as the user sees it from the client: log the effective configuration, mark the
 * snapshot as being built (with a heartbeat), run the job — whose last stage verifies, writes the
 * manifest and publishes ({@link CommitOperator}) — and end with the counters table. A failure at any
 * step leaves {@code CURRENT} untouched and removes the unpublished snapshot's files; a build that
 * loses the compare-and-set on {@code CURRENT}, or fails a gate, keeps its complete snapshot and fails
 * with a clear message. A detached submission returns at once: the job commits by itself.
 */
public final class SnapshotBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotBuilder.class);

  private final BuildConfig config;
  private final PrintStream out;
  private boolean force;
  /** The marker of the build under way in {@link #build}, tracked as running in this process meanwhile. */
  private StagingMarker begun;

  public SnapshotBuilder(BuildConfig config, PrintStream out) {
    this.config = config;
    this.out = out;
  }

  /** Publish even if {@code CURRENT} no longer names the snapshot this build started from. */
  public SnapshotBuilder force(boolean force) {
    this.force = force;
    return this;
  }

  /** How long a build's marker counts as running without a heartbeat: three missed beats. */
  static Duration runningFresh() {
    return StagingHeartbeat.DEFAULT_INTERVAL.multipliedBy(3);
  }

  /**
   * Before anything is planned: another running build of the root is refused or, with
   * {@code concurrent-builds: wait}, waited for (polled every few seconds, for as long as it stays
   * alive), so that this build then plans from the snapshot that one published.
   */
  private void awaitAlone(SnapshotStore store) throws InterruptedException {
    if ("allow".equals(config.concurrentBuilds)) {
      return;
    }
    long pollMillis = Math.max(200, Math.min(5_000, StagingHeartbeat.DEFAULT_INTERVAL.toMillis() / 4));
    boolean told = false;
    while (true) {
      List<RunningBuilds.Running> running = RunningBuilds.scan(store, Instant.now(), runningFresh(), null);
      if (running.isEmpty()) {
        return;
      }
      String who = String.join("; ", running.stream().map(r -> r.describe(Instant.now())).toList());
      if (!"wait".equals(config.concurrentBuilds)) {
        throw new BuildRunningException("another build of " + store.layout().root() + " is running: " + who
            + ". Nothing was written. Run this build once it has finished, or with --set concurrent-builds=wait to"
            + " wait for it (a build whose process died stops counting when its heartbeat is "
            + runningFresh().toSeconds() + " s old)", running);
      }
      if (!told) {
        out.println("+ waiting for " + running.size() + " running build(s) of this root: " + who);
        told = true;
      }
      Thread.sleep(pollMillis);
    }
  }

  /**
   * Writes this build's STAGING marker; unless {@code concurrent-builds: allow}, under the root's lock
   * and only if no other build began since {@link #awaitAlone} looked (then refused, whatever the policy:
   * this build planned from a {@code CURRENT} the other may be about to replace).
   */
  private StagingMarker begin(SnapshotPublisher publisher, String id, String continued) {
    return "allow".equals(config.concurrentBuilds) ? publisher.begin(id, continued)
        : publisher.beginAlone(id, continued, runningFresh());
  }

  /** What a finished build produced. */
  public record BuildReport(String snapshotId, Manifest manifest, Counters counters, boolean published) {}

  public BuildReport build(StreamExecutionEnvironment env) throws Exception {
    try {
      return buildOnce(env);
    } finally {
      RunningBuilds.untrack(begun);
      begun = null;
    }
  }

  private BuildReport buildOnce(StreamExecutionEnvironment env) throws Exception {
    long t0 = System.currentTimeMillis();
    FlinkFileSystems.initialize(config.filesystem);
    // Resolved before anything is logged or fingerprinted: the effective configuration is what the build uses.
    BuildContext ctx = BuildContext.resolve(config);
    BuildJob job = new BuildJob(ctx);
    out.println("Kiln build: effective configuration");
    ctx.describe().forEach(out::println);

    // A remote root (s3://...) is published through its own storage (conditional PUT on S3), with the
    // same protocol as a local one.
    SnapshotStore store = ctx.target().store();
    SnapshotPublisher publisher = new SnapshotPublisher(store);
    awaitAlone(store);
    // The base of the compare-and-set: this build publishes only over the snapshot it started from.
    String base = store.current().orElse(null);
    String id = SnapshotLayout.newSnapshotId();
    out.println("+ snapshot: " + id + " (CURRENT at start: " + (base == null ? "none" : base) + ")");
    BuildMode mode = config.changelog.enabled() ? new BuildMode.Changelog(ChangelogPlan.plan(ctx, store))
        : IncrementalPlan.plan(ctx, store, base);
    out.println(describe(mode));
    // Every corpus build lists its files, so that the next one can leave the unchanged ones unread.
    CorpusListing.Encoded listed = null;
    if (!(mode instanceof BuildMode.Changelog)) {
      CorpusListing listing = CorpusListing.plan(ctx, store, mode);
      listed = listing.encode();
      out.println("+ corpus files: " + listing.entries().size() + " listed; " + listing.reason());
      job.corpusBytes(listing.bytesToRead(mode instanceof BuildMode.Incremental));
      if (listing.kept() > 0 && mode instanceof BuildMode.Incremental incremental) {
        // Read by the source's enumerator and the shard writers wherever they run: a URI of the root.
        mode = incremental.withUnreadListing(ctx.target().uri(SnapshotLayout.snapshotKey(id)
            + SnapshotLayout.CORPUS_FILES));
      }
    }
    // Which stored vectors the embed stage may reuse (a remote root's are read from the root itself, by
    // the client and by the subtasks).
    EmbeddingReuse.Plan reuse = EmbeddingReuse.plan(config.embed, ctx.target(), store, ctx.modelFingerprint(),
        ctx.model().dimension());
    CommitPlan plan = ManifestDraft.plan(ctx, id, base, mode, listed == null ? null : listed.entry(), reuse,
        InheritedVectors.plan(store, mode, ctx.modelFingerprint(), ctx.model().dimension()), force);
    // The marker's heartbeat tells gc on any host that this build is alive, however long it runs, and its
    // base which snapshot gc must keep meanwhile: the one whose files the build continues. The job keeps
    // it itself (StagingBeatSource, in the JobManager), taking the marker over as it starts. This client
    // beats it too while it waits for the job (it yields once the job took over); a detached client, which
    // does not wait, stops before it submits, so that no beat of its crosses the takeover and leaves the
    // marker to a process about to exit.
    String continued = mode instanceof BuildMode.Changelog(ChangelogPlan changelog) ? changelog.base() : base;
    begun = begin(publisher, id, continued);
    RunningBuilds.track(begun);
    StagingHeartbeat heartbeat = StagingHeartbeat.start(store.storage(), id, begun, StagingHeartbeat.DEFAULT_INTERVAL);
    BuildJob.JobOutcome outcome;
    try {
      if (listed != null) {
        CorpusListing.write(store, id, listed.data());
      }
      if (!env.getConfiguration().get(DeploymentOptions.ATTACHED)) {
        heartbeat.close();
      }
      outcome = job.execute(env, id, mode, reuse, plan, begun, StagingHeartbeat.DEFAULT_INTERVAL);
    } catch (DetachedSubmission e) {
      heartbeat.close();
      // The job verifies and publishes by itself: leave it to it.
      out.println(e.getMessage());
      return new BuildReport(id, null, new Counters().put("snapshot", id + " (submitted detached)"), false);
    } catch (Exception e) {
      heartbeat.close();
      Throwable cause = decided(e);
      // The committer removed what it had to; anything else the job left (it failed before committing)
      // is removed here, unless a manifest was written (a HELD snapshot, a lost compare-and-set).
      if (!hasManifest(store, id)) {
        discard(ctx.target(), publisher, id);
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
    heartbeat.close();
    CommitResult commit = outcome.commit();
    long tEnd = System.currentTimeMillis();
    Counters c = counters(outcome, commit, id, mode);
    c.putSeconds("flink job wall (commit included)", tEnd - t0 - commit.commitMillis())
        .putSeconds("verify + manifest + publish (in the job)", commit.commitMillis())
        .putSeconds("total wall", tEnd - t0);
    c.table("Kiln build: counters (busy = summed over subtasks)").forEach(out::println);
    return new BuildReport(id, commit.manifest(), c, config.publish);
  }

  /** The failure the job's committer (or a stage) decided, unwrapped from Flink's job failure, if any. */
  private static Throwable decided(Exception e) {
    for (Class<? extends Throwable> type : List.of(SnapshotException.class, ConfigException.class,
        BadInputCheck.TooMuchBadInputException.class)) {
      Optional<? extends Throwable> t = ExceptionUtils.findThrowable(e, type);
      if (t.isPresent()) {
        return t.get();
      }
    }
    return e;
  }

  private static boolean hasManifest(SnapshotStore store, String id) {
    try {
      return store.hasManifest(id);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The line the log shows for the build's mode. */
  private static String describe(BuildMode mode) {
    return switch (mode) {
      case BuildMode.Changelog(ChangelogPlan changelog) -> "+ changelog: topic " + changelog.topic() + ", base "
          + (changelog.base() == null ? "none (empty)" : changelog.base()) + ", offsets " + changelog.startOffsets()
          + " -> " + changelog.endOffsets() + " (" + changelog.records() + " records)";
      case BuildMode.Incremental incremental -> "+ incremental: yes, " + incremental.reason();
      case BuildMode.Full full -> "+ incremental: no, a full build: " + full.reason();
    };
  }

  private Counters counters(BuildJob.JobOutcome outcome, CommitResult commit, String id, BuildMode mode) {
    Counters c = new Counters()
        .put("snapshot", id + (config.publish ? " (published)" : " (not published)"))
        .put("records read", outcome.counter(JobCounters.RECORDS_READ))
        .put("documents", outcome.counter(JobCounters.DOCUMENTS))
        .put("quarantined", outcome.counter(JobCounters.QUARANTINED));
    outcome.quarantine().byReason().forEach((reason, n) -> c.put("  quarantined: " + reason, n));
    if (mode instanceof BuildMode.Changelog(ChangelogPlan changelog)) {
      c.put("changelog records (offset range)", changelog.records())
          .put("changelog upserts", outcome.counter(JobCounters.CHANGELOG_UPSERTS))
          .put("changelog deletes", outcome.counter(JobCounters.CHANGELOG_DELETES))
          .put("changelog_delete_unknown", outcome.counter(JobCounters.CHANGELOG_DELETE_UNKNOWN))
          .put("changelog ops superseded", outcome.counter(JobCounters.CHANGELOG_SUPERSEDED))
          .put("base chunks removed", outcome.counter(JobCounters.CHANGELOG_CHUNKS_REMOVED));
    }
    if (mode instanceof BuildMode.Full full) {
      c.put("incremental", "no: " + full.reason());
    } else if (mode instanceof BuildMode.Incremental incremental) {
      c.put("incremental", incremental.reason())
          .put("records of unchanged files (not read)", outcome.counter(JobCounters.RECORDS_UNREAD))
          .put("documents unchanged (base chunks kept)", outcome.counter(JobCounters.INCREMENTAL_KEPT))
          .put("documents removed (gone from the corpus)", outcome.counter(JobCounters.INCREMENTAL_REMOVED))
          .put("documents relocated (record moved to another file)",
              outcome.counter(JobCounters.INCREMENTAL_RELOCATED))
          .put("base chunks removed", outcome.counter(JobCounters.CHANGELOG_CHUNKS_REMOVED));
    }
    c.put("chunks", outcome.counter(JobCounters.CHUNKS))
        .put("chunks embedded", outcome.counter(JobCounters.CHUNKS_EMBEDDED))
        .put("chunks reused", outcome.counter(JobCounters.CHUNKS_REUSED))
        .put("chunks supplied (precomputed vectors)", outcome.counter(JobCounters.CHUNKS_SUPPLIED))
        .put("chunks deduplicated (identical, embedded once)", outcome.counter(JobCounters.CHUNKS_DEDUPLICATED))
        .put("embedding models loaded", outcome.counter(JobCounters.MODEL_LOADS))
        .put("reused from", outcome.reuse().source().isEmpty() ? "none: " + outcome.reuse().reason()
            : (outcome.reuse().source().snapshotId() == null ? "no published snapshot"
                : outcome.reuse().source().snapshotId())
            + (outcome.reuse().source().resumedFrom().isEmpty() ? ""
                : "; resumed from unpublished " + outcome.reuse().source().resumedFrom()))
        .put("stored-vector parts read (refused)", outcome.counter(JobCounters.REUSE_PARTS_READ) + " ("
            + outcome.counter(JobCounters.REUSE_PARTS_REFUSED) + ")")
        .put("chunks truncated", outcome.counter(JobCounters.CHUNKS_TRUNCATED))
        .put("chunks written", outcome.counter(JobCounters.CHUNKS_WRITTEN))
        .put("chunks of duplicate ids (embedded, not written)", outcome.counter(JobCounters.CHUNKS_DUPLICATE_ID))
        .put("chunks oversize (kept whole)", outcome.counter(JobCounters.CHUNKS_OVERSIZE))
        .put("parents written", outcome.counter(JobCounters.PARENTS_WRITTEN));
    if (outcome.counter(JobCounters.SHARD_BYTES_UPLOADED) > 0 || outcome.counter(JobCounters.BASE_BYTES_READ) > 0) {
      // A remote root: what the writers moved, which a rebuild keeps to the change (format 2 references).
      c.put("shard bytes uploaded", outcome.counter(JobCounters.SHARD_BYTES_UPLOADED))
          .put("base bytes read (on demand)", outcome.counter(JobCounters.BASE_BYTES_READ));
    }
    if (outcome.counter(JobCounters.PARENTS_BYTES_UPLOADED) > 0
        || outcome.counter(JobCounters.PARENTS_BASE_BYTES_READ) > 0) {
      c.put("docstore bytes uploaded", outcome.counter(JobCounters.PARENTS_BYTES_UPLOADED))
          .put("docstore base bytes read (on demand)", outcome.counter(JobCounters.PARENTS_BASE_BYTES_READ));
    }
    c.put("shards", config.shards)
        .put("largest shard (chunks)", ShardSizeAdvice.describeLargest(commit.manifest()))
        .put("segments (before merge → after)", commit.segmentsBefore() + " → " + commit.segmentsAfter())
        .put("recall probe (min over shards)", commit.minRecall() < 0 ? "off"
            : String.format(Locale.ROOT, "%.3f (floor %.2f, recall@%d, %d samples/shard%s)", commit.minRecall(),
                config.index.recallFloor, config.index.recallProbeK, config.index.recallProbeSamples,
                mode instanceof BuildMode.Incremental ? "; the segments this build wrote" : ""))
        .putSeconds("parse busy", outcome.counter(JobCounters.TIME_PARSE) / 1_000_000)
        .putSeconds("chunk busy", outcome.counter(JobCounters.TIME_CHUNK) / 1_000_000)
        .putSeconds("embed busy", outcome.counter(JobCounters.TIME_EMBED) / 1_000_000)
        .putSeconds("shard write busy", outcome.counter(JobCounters.TIME_WRITE) / 1_000_000);
    if (!config.index.rangeFields.isEmpty()) {
      c.put("range values unparsed (exact-match only)", outcome.counter(JobCounters.RANGE_VALUES_UNPARSED));
    }
    if (commit.published()) {
      // Referenced files no VERIFIED record vouches for are hashed at publish: 0 when nothing changed.
      c.put("referenced files hashed at publish", commit.referencedHashed() + " of " + commit.referencedFiles()
          + " (" + commit.referencedHashedBytes() + " bytes)");
    }
    return c;
  }

  /**
   * Removes an unpublished snapshot's directory, unless {@code CURRENT} names it (checked under the
   * root's lock by {@link SnapshotPublisher#discardUnpublished}).
   */
  static void discard(SnapshotsTarget target, SnapshotPublisher publisher, String id) {
    if (!publisher.discardUnpublished(id)) {
      return;
    }
    LOG.info("removed unpublished snapshot {}", publisher.store().layout().snapshotDir(id));
    if (target.remote()) {
      // The client's mirror of a remote root may hold a copy of it too.
      try {
        new LocalSnapshotStorage(target.localLayout().root()).deleteTree(SnapshotLayout.snapshotKey(id));
      } catch (IOException e) {
        LOG.warn("could not remove the local copy of unpublished snapshot {}: {}", id, e.getMessage());
      }
    }
  }
}
