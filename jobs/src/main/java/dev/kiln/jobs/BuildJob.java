package dev.kiln.jobs;

import dev.kiln.cli.Kiln;
import dev.kiln.config.BuildConfig;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ParentChange;
import dev.kiln.model.ParentChunk;
import dev.kiln.model.ShardChange;
import dev.kiln.operators.ChunkFunction;
import dev.kiln.operators.ContinuingParentWriterFunction;
import dev.kiln.operators.ContinuingShardWriterFunction;
import dev.kiln.operators.EmbedFunction;
import dev.kiln.operators.EmbedOperator;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.ParentWriterFunction;
import dev.kiln.operators.QuarantineSummary;
import dev.kiln.operators.QuarantineWriterFunction;
import dev.kiln.operators.QuarantinedRecord;
import dev.kiln.operators.ReportingStages;
import dev.kiln.operators.ShardWriterFunction;
import dev.kiln.operators.SourcedDocument;
import dev.kiln.operators.StageProgress;
import dev.kiln.operators.StageReport;
import dev.kiln.operators.StageReports;
import dev.kiln.operators.TaskThreadFailures;
import dev.kiln.operators.fs.BaseFiles;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.operators.types.KilnTypeInfo;
import dev.kiln.route.DocShardKey;
import dev.kiln.route.ShardPartitioner;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.StagingMarker;
import dev.kiln.vectors.VectorFiles;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The build job: corpus → parse → chunk → embed → route → shard write → commit, as a Flink batch job
 * ({@link SnapshotBuilder} plans it and runs it). This class only wires stages, as the {@link
 * BuildMode} and the {@link BuildContext} say; each stage lives in its own operator.
 */
public final class BuildJob {
  private static final Logger LOG = LoggerFactory.getLogger(BuildJob.class);

  private final BuildContext ctx;
  private final BuildConfig config;
  private final SnapshotsTarget target;
  /** The parse stage's progress total: bytes of the corpus files the build reads, or -1 when not listed. */
  private long corpusBytes = -1;

  public BuildJob(BuildContext ctx) {
    this.ctx = ctx;
    this.config = ctx.config();
    this.target = ctx.target();
  }

  /** Sets the parse stage's progress total ({@link StageProgress}): bytes of the corpus files read. */
  BuildJob corpusBytes(long bytes) {
    this.corpusBytes = bytes;
    return this;
  }

  /** Entry point for {@code flink run}: the cluster provides the execution environment. */
  public static void main(String[] args) throws Exception {
    int code = Kiln.execute(prepend("build", "--cluster", args));
    if (code != 0) {
      throw new IllegalStateException("kiln build failed with exit code " + code);
    }
  }

  private static String[] prepend(String a, String b, String[] rest) {
    String[] all = new String[rest.length + 2];
    all[0] = a;
    all[1] = b;
    System.arraycopy(rest, 0, all, 2, rest.length);
    return all;
  }

  /** A Flink mini-cluster in this JVM with every endpoint on the loopback interface. */
  public static StreamExecutionEnvironment localEnvironment(int parallelism) {
    return localEnvironment(parallelism, new Configuration());
  }

  /** As {@link #localEnvironment(int)}, with further settings (a metrics reporter, file systems). */
  public static StreamExecutionEnvironment localEnvironment(int parallelism, Configuration extra) {
    Configuration conf = new Configuration(extra);
    conf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(JobManagerOptions.ADDRESS, "127.0.0.1");
    conf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(TaskManagerOptions.HOST, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
    return StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
  }

  /**
   * Adds the build pipeline, committer included, to {@code env} and runs it.
   *
   * @param reuse the stored vectors the embed stage may reuse
   * @param staging the snapshot's STAGING marker as the client wrote it: the job takes it over and keeps
   *     its heartbeat every {@code heartbeat} ({@link StagingBeatSource})
   * @return the job's accumulators and the commit's result
   * @throws DetachedSubmission when the environment submitted the job detached (it commits itself)
   */
  public JobOutcome execute(StreamExecutionEnvironment env, String snapshotId, BuildMode mode,
      EmbeddingReuse.Plan reuse, CommitPlan plan, StagingMarker staging, Duration heartbeat) throws Exception {
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(config.parallelism);
    env.configure(JobSettings.jobSettings(config, env instanceof LocalStreamEnvironment, corpusBytes));
    DataStream<SourcedDocument> documents;
    DataStream<QuarantinedRecord> quarantined;
    DataStream<StageReport> reports;
    ChangelogStages.Streams changes = null;
    Continued continued = null;
    switch (mode) {
      case BuildMode.Changelog(ChangelogPlan changelog) -> {
        changes = ChangelogStages.read(env, changelog, config, snapshotId);
        documents = changes.upserts();
        quarantined = changes.quarantine();
        reports = changes.reports();
        continued = new Continued(changelog.baseFiles(target), changes.removals(), false,
            shardFiles(changelog.baseManifest()), null, ContinuingParentWriterFunction.partFiles(changelog.baseManifest()));
      }
      case BuildMode.Incremental incremental -> {
        CorpusStages.Streams corpus = CorpusStages.read(env, config, ctx.model(), incremental.documents(),
            incremental.unreadListing());
        documents = corpus.documents();
        quarantined = corpus.quarantine();
        reports = corpus.reports();
        continued = new Continued(target.base(incremental.baseManifest()), corpus.kept(), true,
            shardFiles(incremental.baseManifest()), incremental.unreadListing(),
            ContinuingParentWriterFunction.partFiles(incremental.baseManifest()));
      }
      case BuildMode.Full full -> {
        CorpusStages.Streams corpus = CorpusStages.read(env, config, ctx.model(), null, null);
        documents = corpus.documents();
        quarantined = corpus.quarantine();
        reports = corpus.reports();
      }
    }
    reports = reports.union(quarantined
        .fullWindowPartition()
        .mapPartition(TaskThreadFailures.of(new QuarantineWriterFunction(ctx.quarantineDir(snapshotId))))
        .returns(StageReport.class)
        .name("write-quarantine"));
    // The job keeps its snapshot's STAGING marker alive itself, from the JobManager, for as long as it runs.
    env.fromSource(new StagingBeatSource(target, snapshotId, staging, heartbeat), WatermarkStrategy.noWatermarks(),
            "staging-heartbeat", TypeInformation.of(Void.class))
        .setParallelism(1)
        .sinkTo(new DiscardingSink<>()).name("staging-heartbeat-end").setParallelism(1);
    return run(env, snapshotId, documents, continued, changes, reports, reuse, plan);
  }

  /**
   * A build whose shard writers continue a base snapshot: a changelog build, or an incremental corpus
   * build ({@code prune}: the base documents not kept are removed, the base segments are not merged).
   *
   * @param base the base's files as the target gives them to writers, or {@code null}: empty shards
   * @param changes what happens to base documents besides fresh chunks: removals or keeps
   * @param unreadListing the corpus listing whose kept files were not read (their documents stay), or {@code null}
   * @param parentFiles the base's docstore files by part (empty without a base docstore)
   */
  private record Continued(BaseFiles base, DataStream<ShardChange> changes, boolean prune,
      Map<Integer, List<Manifest.FileEntry>> baseFiles, String unreadListing,
      Map<Integer, List<Manifest.FileEntry>> parentFiles) {}

  /**
   * A continuing build's fresh chunks as shard changes. Each stream that carries them is mapped where it
   * is made, chained to its producer, and the two are united after: a map after the union is a task of
   * its own, one more network hop (every fresh chunk serialized and read once more) and one more input
   * for the JIT to compile.
   */
  private DataStream<ShardChange> freshChanges(SingleOutputStreamOperator<EmbeddedChunk> embedded,
      SingleOutputStreamOperator<Chunk> chunks) {
    DataStream<ShardChange> fresh = embedded.map(new ChangelogStages.Fresh(), KilnTypeInfo.SHARD_CHANGE)
        .name("fresh-chunks").setParallelism(embedded.getParallelism());
    if (config.embed.storeSupplied) {
      return fresh;
    }
    return fresh.union(chunks.getSideOutput(ChunkFunction.SUPPLIED)
        .map(new ChangelogStages.Fresh(), KilnTypeInfo.SHARD_CHANGE)
        .name("fresh-supplied-chunks").setParallelism(chunks.getParallelism()));
  }

  /** Each shard's files as a base manifest lists them (none without a base). */
  private static Map<Integer, List<Manifest.FileEntry>> shardFiles(Manifest base) {
    Map<Integer, List<Manifest.FileEntry>> out = new HashMap<>();
    if (base != null) {
      base.shards().forEach(s -> out.put(s.shard(), new ArrayList<>(s.files())));
    }
    return out;
  }

  private JobOutcome run(StreamExecutionEnvironment env, String snapshotId, DataStream<SourcedDocument> documents,
      Continued continued, ChangelogStages.Streams changes, DataStream<StageReport> stageReports,
      EmbeddingReuse.Plan reuse, CommitPlan plan) throws Exception {
    SingleOutputStreamOperator<Chunk> chunks = ReportingStages.process(documents, "chunk",
        new ChunkFunction(config.chunker, config.embed.model, ctx.documentSettings(), !config.embed.storeSupplied),
        KilnTypeInfo.CHUNK, JobCounters.CHUNK_STAGE);
    DataStream<StageReport> reports = stageReports.union(chunks.getSideOutput(StageReports.TAG));

    int threads = JobSettings.embedThreads(config.embed.threads, Runtime.getRuntime().availableProcessors(), config.parallelism);
    LOG.info("embed: {} slot(s) x {} engine thread(s) ({}), device {}, model {} {}; reuse: {}",
        config.parallelism, threads, config.embed.threads > 0 ? "embed.threads" : "cores / parallelism",
        config.embed.device, ctx.model().name(), ctx.modelFingerprint(), reuse.reason());
    String keySettings = ctx.keySettings();
    // With a remote root each embed subtask uploads its own part file there, like the shard writers.
    String vectorsDir = target.dir(SnapshotLayout.snapshotKey(snapshotId) + VectorFiles.DIRECTORY);
    // By content key, so each subtask needs only its own partition of the stored vectors.
    DataStream<Chunk> byKey = chunks.partitionCustom(new JobKeys.ContentKeyPartitioner(), new JobKeys.ContentKeySelector(keySettings));
    SingleOutputStreamOperator<EmbeddedChunk> embedded = EmbedOperator.embed(byKey,
            new EmbedFunction(config.embed, threads, ctx.modelFingerprint(), keySettings,
                config.chunker.breadcrumbPrefix, vectorsDir, snapshotId, reuse.source()))
        .setParallelism(config.parallelism);
    reports = reports.union(embedded.getSideOutput(StageReports.TAG));
    // Chunks whose records carried their vectors skip the embed stage and its content-key shuffle
    // (embed.store-supplied: false): one shuffle, chunker to shard writer, instead of two.
    DataStream<EmbeddedChunk> toWrite = config.embed.storeSupplied ? embedded
        : embedded.union(chunks.getSideOutput(ChunkFunction.SUPPLIED));

    int writers = Math.min(config.shards, config.parallelism);
    int shards = config.shards;
    int dimension = ctx.model().dimension();
    // Writers write into the target (a remote root through a local staging directory); each runs wrapped
    // so that a failure fails its task, not its TaskManager (TaskThreadFailures).
    // An incremental build's docstore follows its shards: they report what its parts must do.
    boolean parentsFollow = config.chunker.parents.enabled && continued != null && continued.prune();
    DataStream<StageReport> written = continued != null
        ? freshChanges(embedded, chunks).union(continued.changes())
            .partitionCustom(new ShardPartitioner(), new DocShardKey<ShardChange>(shards, ShardChange::docId))
            .fullWindowPartition()
            .mapPartition(TaskThreadFailures.of(continuingWriter(snapshotId, continued, shards, dimension,
                parentsFollow)))
            .returns(StageReport.class)
            .name("write-shards")
            .setParallelism(writers)
        : toWrite
        .partitionCustom(new ShardPartitioner(), new DocShardKey<EmbeddedChunk>(shards, c -> c.chunk().docId()))
        .fullWindowPartition()
        .mapPartition(TaskThreadFailures.of(new ShardWriterFunction(target, snapshotId, shards, dimension,
            config.index, ctx.quarantineDir(snapshotId))))
        .returns(StageReport.class)
        .name("write-shards")
        // partitionCustom + mapPartition does not inherit the routing's parallelism: set it, or
        // every shard would be written by one subtask.
        .setParallelism(writers);
    if (parentsFollow) {
      DataStream<ParentChange> decisions = written
          .flatMap((StageReport r, Collector<ParentChange> out) -> r.parentChanges().forEach(out::collect))
          .returns(ParentChange.class).name("shard-decisions-for-parents").setParallelism(writers);
      reports = reports.union(written.filter(r -> !r.forParents()).name("shard-reports").setParallelism(writers));
      reports = reports.union(continuedParents(snapshotId, continued, chunks, decisions, shards, writers, true));
    } else {
      reports = reports.union(written);
    }
    if (parentsFollow) {
      LOG.info("parents docstore: continued over the base, following the shards' decisions");
    } else if (config.chunker.parents.enabled && changes != null) {
      reports = reports.union(continuedParents(snapshotId, continued, chunks, changes.parentRemovals(), shards,
          writers, false));
    } else if (config.chunker.parents.enabled) {
      // Parents are routed like their children and written once into the snapshot's docstore.
      reports = reports.union(chunks.getSideOutput(ChunkFunction.PARENTS)
          .partitionCustom(new ShardPartitioner(), new DocShardKey<ParentChunk>(shards, ParentChunk::docId))
          .fullWindowPartition()
          .mapPartition(TaskThreadFailures.of(new ParentWriterFunction(target, snapshotId, shards)))
          .returns(StageReport.class)
          .name("write-parents")
          .setParallelism(writers));
    }
    // The committer: one subtask, after every stage has reported (batch mode: after all writers ended).
    reports.transform("commit", TypeInformation.of(Void.class), new CommitOperator(plan))
        .setParallelism(1).setMaxParallelism(1)
        .sinkTo(new DiscardingSink<>()).name("committed").setParallelism(1);

    LOG.info("submitting build of snapshot {} ({} shards, parallelism {})", snapshotId, shards, config.parallelism);
    JobExecutionResult result = env.execute("kiln build " + snapshotId);
    if (!result.isJobExecutionResult()) {
      throw new DetachedSubmission(snapshotId, result.getJobID().toString());
    }
    List<String> commit = result.getAccumulatorResult(CommitResult.ACCUMULATOR);
    List<QuarantineSummary> quarantine = result.getAccumulatorResult(QuarantineWriterFunction.SUMMARIES);
    if (commit == null || commit.size() != 1) {
      throw new IllegalStateException("the job finished without a commit result (" + commit + ")");
    }
    return new JobOutcome(result, CommitResult.fromJson(commit.get(0)),
        QuarantineSummary.merge(quarantine == null ? List.of() : quarantine), ctx.quarantineDir(snapshotId), reuse);
  }

  /** The shard writer of a build that continues a base (a changelog or an incremental build). */
  private ContinuingShardWriterFunction continuingWriter(String snapshotId, Continued continued, int shards,
      int dimension, boolean parentsFollow) {
    ContinuingShardWriterFunction w = new ContinuingShardWriterFunction(target, snapshotId, continued.base(), shards,
        dimension, config.index, continued.prune(), continued.baseFiles(),
        continued.prune() ? ctx.quarantineDir(snapshotId) : null, continued.unreadListing());
    return parentsFollow ? w.withParentChanges() : w;
  }

  /**
   * The docstore writer of a build that continues a base: fresh parents, and what happens to the base's
   * ({@code baseChanges}: a changelog's removals, or an incremental build's shard decisions).
   */
  private DataStream<StageReport> continuedParents(String snapshotId, Continued continued,
      SingleOutputStreamOperator<Chunk> chunks, DataStream<ParentChange> baseChanges, int shards, int writers,
      boolean incremental) {
    return chunks.getSideOutput(ChunkFunction.PARENTS)
        .map(new ChangelogStages.FreshParent()).name("fresh-parents")
        .union(baseChanges)
        .partitionCustom(new ShardPartitioner(), new DocShardKey<ParentChange>(shards, ParentChange::docId))
        .fullWindowPartition()
        .mapPartition(TaskThreadFailures.of(new ContinuingParentWriterFunction(target, snapshotId,
            continued.base(), shards, continued.parentFiles(), incremental)))
        .returns(StageReport.class)
        .name("write-parents")
        .setParallelism(writers);
  }

  /** The job's output as seen by the client. */
  public record JobOutcome(JobExecutionResult result, CommitResult commit, QuarantineSummary quarantine,
      String quarantineDir, EmbeddingReuse.Plan reuse) {
    public long counter(String name) {
      Object v = result.getAccumulatorResult(name);
      return v instanceof Number n ? n.longValue() : 0L;
    }
  }
}
