package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.embed.ModelFiles;
import dev.kiln.embed.ModelSpec;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentKey;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ParentChange;
import dev.kiln.model.ParentChunk;
import dev.kiln.model.ShardChange;
import dev.kiln.operators.ChangelogParentWriterFunction;
import dev.kiln.operators.types.KilnTypeInfo;
import dev.kiln.operators.ContinuingShardWriterFunction;
import dev.kiln.operators.BaseDocuments;
import dev.kiln.operators.ChunkFunction;
import dev.kiln.operators.EmbedFunction;
import dev.kiln.operators.EmbedOperator;
import dev.kiln.operators.ParentWriterFunction;
import dev.kiln.operators.QuarantineSummary;
import dev.kiln.operators.QuarantineWriterFunction;
import dev.kiln.operators.SourcedDocument;
import dev.kiln.operators.ShardWriterFunction;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.ReportingStages;
import dev.kiln.operators.StageReport;
import dev.kiln.operators.StageReports;
import dev.kiln.operators.TaskThreadFailures;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import dev.kiln.route.ShardPartitioner;
import dev.kiln.route.DocShardKey;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.vectors.VectorFiles;
import dev.kiln.operators.fs.RemoteBaseFiles;
import dev.kiln.snapshot.Manifest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The build job: corpus → parse → chunk → embed → route → shard write, as a Flink batch job; then the
 * shard merger verifies, writes the manifest and publishes ({@link SnapshotBuilder}). This class only
 * wires stages; each stage lives in its own operator.
 */
public final class BuildJob {
  private static final Logger LOG = LoggerFactory.getLogger(BuildJob.class);

  private final BuildConfig config;
  private final ModelSpec model;
  private final SnapshotsTarget target;
  private final SnapshotLayout layout;
  private final String fingerprint;
  private transient EmbeddingReuse.Plan reuse;

  public BuildJob(BuildConfig config) {
    this.config = config.validate();
    this.model = ModelChunking.resolve(config);
    // Resolved once: a remote root is verified and described from a local mirror, the job uploads to it.
    this.target = SnapshotsTarget.of(config.snapshots, config.filesystem);
    this.layout = target.localLayout();
    this.fingerprint = ModelFiles.fingerprint(model);
  }

  /** The model's fingerprint: recorded in the manifest and on every stored vector. */
  public String modelFingerprint() {
    return fingerprint;
  }

  /** What goes into every content key besides the chunk: the chunker settings and tokenizer. */
  public String keySettings() {
    return ContentKey.settingsFingerprint(config.chunker, model.source());
  }

  /**
   * What every document fingerprint starts with: the settings that shape a document's chunks, vectors
   * and index fields, so that no document built under other settings ever counts as unchanged.
   */
  public String documentSettings() {
    return String.join("|", keySettings(), fingerprint, config.index.analyzer, config.index.rangeTypes().toString());
  }

  /** Entry point for {@code flink run}: the cluster provides the execution environment. */
  public static void main(String[] args) throws Exception {
    int code = dev.kiln.cli.Kiln.execute(prepend("build", "--cluster", args));
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

  /** The local snapshots root: the root itself, or the local mirror of a remote one. */
  public SnapshotLayout layout() {
    return layout;
  }

  /** The snapshots root, resolved once: local or remote, its store, where the job writes. */
  public SnapshotsTarget target() {
    return target;
  }

  /** Whether the snapshots root is remote (published through {@code RemoteStorages}, verified from the mirror). */
  public boolean remote() {
    return target.remote();
  }

  public SnapshotMirror mirror() {
    return new SnapshotMirror(config.snapshots, layout.root());
  }

  public ModelSpec model() {
    return model;
  }

  /**
   * Adds the build pipeline, committer included, to {@code env} and runs it.
   *
   * @param changelog a changelog build's range, or null for a corpus build
   * @param incremental whether a corpus build continues CURRENT (null: decide nothing, a full build)
   * @return the job's accumulators and the commit's result
   * @throws DetachedSubmission when the environment submitted the job detached (it commits itself)
   */
  public JobOutcome execute(StreamExecutionEnvironment env, String snapshotId, ChangelogPlan changelog,
      IncrementalPlan incremental, CommitPlan plan) throws Exception {
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(config.parallelism);
    env.configure(JobSettings.jobSettings(config, env instanceof LocalStreamEnvironment));
    DataStream<SourcedDocument> documents;
    DataStream<dev.kiln.operators.QuarantinedRecord> quarantined;
    DataStream<StageReport> reports;
    ChangelogStages.Streams changes = null;
    Continued continued = null;
    if (changelog != null) {
      changes = ChangelogStages.read(env, changelog, config, snapshotId);
      documents = changes.upserts();
      quarantined = changes.quarantine();
      reports = changes.reports();
      continued = new Continued(changelog.base(), changelog.remoteBaseFiles(target), changes.removals(), false,
          shardFiles(changelog.baseManifest()), null);
    } else {
      BaseDocuments base = incremental != null && incremental.incremental() ? incremental.documents() : null;
      CorpusStages.Streams corpus = CorpusStages.read(env, config, model, base,
          base == null ? null : incremental.unreadListing());
      documents = corpus.documents();
      quarantined = corpus.quarantine();
      reports = corpus.reports();
      if (base != null) {
        // On a remote root the writers download the base shards they continue, as a changelog build's do.
        RemoteBaseFiles remoteBase = target.remote() ? RemoteBaseFiles.of(target.root(), incremental.baseManifest()) : null;
        continued = new Continued(incremental.base(), remoteBase, corpus.kept(), true,
            shardFiles(incremental.baseManifest()), incremental.unreadListing());
      }
    }
    reports = reports.union(quarantined
        .fullWindowPartition()
        .mapPartition(TaskThreadFailures.of(new QuarantineWriterFunction(quarantineDir(snapshotId))))
        .returns(StageReport.class)
        .name("write-quarantine"));
    return run(env, snapshotId, documents, continued, changes, reports, plan);
  }

  /**
   * A build whose shard writers continue a base snapshot: a changelog build, or an incremental corpus
   * build ({@code prune}: the base documents not kept are removed, the base segments are not merged).
   *
   * @param remoteBase the base's files on a remote root, else {@code null}
   * @param changes what happens to base documents besides fresh chunks: removals or keeps
   * @param unreadListing the corpus listing whose kept files were not read (their documents stay), or {@code null}
   */
  private record Continued(String base, RemoteBaseFiles remoteBase, DataStream<ShardChange> changes, boolean prune,
      Map<Integer, List<Manifest.FileEntry>> baseFiles, String unreadListing) {}

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
      CommitPlan plan) throws Exception {
    SingleOutputStreamOperator<Chunk> chunks = ReportingStages.process(documents, "chunk",
        new ChunkFunction(config.chunker, config.embed.model, documentSettings(), !config.embed.storeSupplied),
        KilnTypeInfo.CHUNK, JobCounters.CHUNK_STAGE);
    DataStream<StageReport> reports = stageReports.union(chunks.getSideOutput(StageReports.TAG));

    int threads = JobSettings.embedThreads(config.embed.threads, Runtime.getRuntime().availableProcessors(), config.parallelism);
    EmbeddingReuse.Plan reuse = reusePlan();
    LOG.info("embed: {} slot(s) x {} engine thread(s) ({}), device {}, model {} {}; reuse: {}",
        config.parallelism, threads, config.embed.threads > 0 ? "embed.threads" : "cores / parallelism",
        config.embed.device, model.name(), fingerprint, reuse.reason());
    String keySettings = keySettings();
    // With a remote root each embed subtask uploads its own part file there, like the shard writers.
    String vectorsDir = target.dir(SnapshotLayout.snapshotKey(snapshotId) + VectorFiles.DIRECTORY);
    // By content key, so each subtask needs only its own partition of the stored vectors.
    DataStream<Chunk> byKey = chunks.partitionCustom(new JobKeys.ContentKeyPartitioner(), new JobKeys.ContentKeySelector(keySettings));
    SingleOutputStreamOperator<EmbeddedChunk> embedded = EmbedOperator.embed(byKey,
            new EmbedFunction(config.embed, threads, fingerprint, keySettings,
                config.chunker.breadcrumbPrefix, vectorsDir, reuse.source()))
        .setParallelism(config.parallelism);
    reports = reports.union(embedded.getSideOutput(StageReports.TAG));
    // Chunks whose records carried their vectors skip the embed stage and its content-key shuffle
    // (embed.store-supplied: false): one shuffle, chunker to shard writer, instead of two.
    DataStream<EmbeddedChunk> toWrite = config.embed.storeSupplied ? embedded
        : embedded.union(chunks.getSideOutput(ChunkFunction.SUPPLIED));

    int writers = Math.min(config.shards, config.parallelism);
    int shards = config.shards;
    // Writers write into the root (a remote one through Flink's file systems); each runs wrapped so that a
    // failure fails its task, not its TaskManager (TaskThreadFailures).
    String writeRoot = target.writeRoot();
    DataStream<StageReport> written = continued != null
        ? freshChanges(embedded, chunks).union(continued.changes())
            .partitionCustom(new ShardPartitioner(), new DocShardKey<ShardChange>(shards, ShardChange::docId))
            .fullWindowPartition()
            .mapPartition(TaskThreadFailures.of(new ContinuingShardWriterFunction(writeRoot, snapshotId,
                continued.base(), continued.remoteBase(), shards, model.dimension(), config.index, continued.prune(),
                continued.baseFiles(), continued.prune() ? quarantineDir(snapshotId) : null,
                continued.unreadListing())))
            .returns(StageReport.class)
            .name("write-shards")
            .setParallelism(writers)
        : toWrite
        .partitionCustom(new ShardPartitioner(), new DocShardKey<EmbeddedChunk>(shards, c -> c.chunk().docId()))
        .fullWindowPartition()
        .mapPartition(TaskThreadFailures.of(new ShardWriterFunction(writeRoot, snapshotId, shards, model.dimension(),
            config.index, quarantineDir(snapshotId))))
        .returns(StageReport.class)
        .name("write-shards")
        // partitionCustom + mapPartition does not inherit the routing's parallelism: set it, or
        // every shard would be written by one subtask.
        .setParallelism(writers);
    reports = reports.union(written);
    if (config.chunker.parents.enabled && changes != null) {
      reports = reports.union(chunks.getSideOutput(ChunkFunction.PARENTS)
          .map(new ChangelogStages.FreshParent()).name("fresh-parents")
          .union(changes.parentRemovals())
          .partitionCustom(new ShardPartitioner(), new DocShardKey<ParentChange>(shards, ParentChange::docId))
          .fullWindowPartition()
          .mapPartition(TaskThreadFailures.of(new ChangelogParentWriterFunction(writeRoot, snapshotId,
              continued.base(), continued.remoteBase(), shards)))
          .returns(StageReport.class)
          .name("write-parents")
          .setParallelism(writers));
    } else if (config.chunker.parents.enabled) {
      // Parents are routed like their children and written once into the snapshot's docstore.
      reports = reports.union(chunks.getSideOutput(ChunkFunction.PARENTS)
          .partitionCustom(new ShardPartitioner(), new DocShardKey<ParentChunk>(shards, ParentChunk::docId))
          .fullWindowPartition()
          .mapPartition(TaskThreadFailures.of(new ParentWriterFunction(writeRoot, snapshotId, shards)))
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
        QuarantineSummary.merge(quarantine == null ? List.of() : quarantine), quarantineDir(snapshotId), reuse);
  }

  /**
   * Which stored vectors the embed stage may reuse (decided before the job; a remote root's are read
   * from the root itself, by the client and by the subtasks).
   */
  EmbeddingReuse.Plan reusePlan() {
    if (reuse == null) {
      reuse = target.remote()
          ? EmbeddingReuse.plan(config.embed, target.store(), fingerprint, model.dimension(), target.root())
          : EmbeddingReuse.plan(config.embed, target.store(), fingerprint, model.dimension());
    }
    return reuse;
  }

  /**
   * Where this build's quarantined records go: {@code <ingest.quarantine-dir>/<snapshot id>/},
   * by default under the snapshots root but outside the snapshot, so it survives a failed build.
   */
  public String quarantineDir(String snapshotId) {
    String base = config.ingest.quarantineDir;
    if (base == null || base.isBlank()) {
      base = target.uri(SnapshotLayout.QUARANTINE);
    }
    return new org.apache.flink.core.fs.Path(base, snapshotId).toString();
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
