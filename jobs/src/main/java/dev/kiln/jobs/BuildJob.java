package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.ingest.CorpusFileFormat;
import dev.kiln.ingest.RecordParser;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ParentChunk;
import dev.kiln.model.RawRecord;
import dev.kiln.model.ShardResult;
import dev.kiln.operators.ChunkFunction;
import dev.kiln.operators.EmbedFunction;
import dev.kiln.operators.ParentWriterFunction;
import dev.kiln.operators.ParseFunction;
import dev.kiln.operators.ShardWriterFunction;
import dev.kiln.route.ShardPartitioner;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
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
  private final SnapshotLayout layout;

  public BuildJob(BuildConfig config) {
    this.config = config.validate();
    this.model = ModelRegistry.resolve(config.embed.model);
    this.layout = new SnapshotLayout(Path.of(config.snapshots));
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
    Configuration conf = new Configuration();
    conf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(JobManagerOptions.ADDRESS, "127.0.0.1");
    conf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(TaskManagerOptions.HOST, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
    return StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
  }

  public SnapshotLayout layout() {
    return layout;
  }

  public ModelSpec model() {
    return model;
  }

  /** Corpus roots as Flink paths, checked to exist so that a typo fails before the job starts. */
  List<org.apache.flink.core.fs.Path> corpusPaths() {
    List<org.apache.flink.core.fs.Path> paths = new ArrayList<>();
    for (String c : config.corpus) {
      org.apache.flink.core.fs.Path p = new org.apache.flink.core.fs.Path(c);
      try {
        FileSystem fs = p.getFileSystem();
        org.apache.flink.core.fs.Path q = p.makeQualified(fs);
        if (!fs.exists(q)) {
          throw new ConfigException("corpus path not found: " + c);
        }
        paths.add(q);
      } catch (IOException e) {
        throw new ConfigException("cannot access corpus path " + c + ": " + e.getMessage(), e);
      }
    }
    return paths;
  }

  /**
   * Adds the build pipeline to {@code env} and runs it.
   *
   * @return the job's accumulators and the shard writers' results
   */
  public JobOutcome execute(StreamExecutionEnvironment env, String snapshotId) throws Exception {
    List<org.apache.flink.core.fs.Path> roots = corpusPaths();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(config.parallelism);

    FileSource<RawRecord> source = FileSource
        .forBulkFileFormat(new CorpusFileFormat(config.inputFormat()),
            roots.toArray(new org.apache.flink.core.fs.Path[0]))
        .build();
    DataStream<RawRecord> raw = env.fromSource(source, WatermarkStrategy.noWatermarks(), "read-corpus");

    List<String> rootNames = roots.stream().map(org.apache.flink.core.fs.Path::toString).toList();
    SingleOutputStreamOperator<Document> documents = raw
        .process(new ParseFunction(new RecordParser(rootNames)))
        .name("parse");

    SingleOutputStreamOperator<Chunk> chunks = documents
        .process(new ChunkFunction(config.chunker, config.embed.model))
        .name("chunk");

    int threads = config.embed.threads > 0 ? config.embed.threads
        : Math.max(1, Runtime.getRuntime().availableProcessors() / config.parallelism);
    DataStream<EmbeddedChunk> embedded = chunks
        .fullWindowPartition()
        .mapPartition(new EmbedFunction(config.embed, threads, config.chunker.breadcrumbPrefix))
        .name("embed");

    int writers = Math.min(config.shards, config.parallelism);
    int shards = config.shards;
    DataStream<ShardResult> written = embedded
        .partitionCustom(new ShardPartitioner(), new ShardKey(shards))
        .fullWindowPartition()
        .mapPartition(new ShardWriterFunction(layout.root().toString(), snapshotId, shards,
            model.dimension(), config.index))
        .name("write-shards")
        // partitionCustom + mapPartition does not inherit the routing's parallelism: set it, or
        // every shard would be written by one subtask.
        .setParallelism(writers);
    written.sinkTo(new DiscardingSink<>()).name("shard-results").setParallelism(writers);
    if (config.chunker.parents.enabled) {
      // Parents are routed like their children and written once into the snapshot's docstore.
      chunks.getSideOutput(ChunkFunction.PARENTS)
          .partitionCustom(new ShardPartitioner(), new ParentShardKey(shards))
          .fullWindowPartition()
          .mapPartition(new ParentWriterFunction(layout.root().toString(), snapshotId, shards))
          .name("write-parents")
          .setParallelism(writers)
          .sinkTo(new DiscardingSink<>()).name("parent-results").setParallelism(writers);
    }

    LOG.info("submitting build of snapshot {} ({} shards, parallelism {})", snapshotId, shards, config.parallelism);
    JobExecutionResult result = env.execute("kiln build " + snapshotId);
    List<ShardResult> results = result.getAccumulatorResult(ShardWriterFunction.RESULTS);
    return new JobOutcome(result, results == null ? List.of() : results);
  }

  /** The job's output as seen by the client. */
  public record JobOutcome(JobExecutionResult result, List<ShardResult> shards) {
    public long counter(String name) {
      Object v = result.getAccumulatorResult(name);
      return v instanceof Number n ? n.longValue() : 0L;
    }
  }

  static final class ParentShardKey implements KeySelector<ParentChunk, Integer> {
    private static final long serialVersionUID = 1L;
    private final int shards;

    ParentShardKey(int shards) {
      this.shards = shards;
    }

    @Override
    public Integer getKey(ParentChunk p) {
      return ShardRouter.shardOf(p.docId(), shards);
    }
  }

  static final class ShardKey implements KeySelector<EmbeddedChunk, Integer> {
    private static final long serialVersionUID = 1L;
    private final int shards;

    ShardKey(int shards) {
      this.shards = shards;
    }

    @Override
    public Integer getKey(EmbeddedChunk c) {
      return ShardRouter.shardOf(c.chunk().docId(), shards);
    }
  }
}
