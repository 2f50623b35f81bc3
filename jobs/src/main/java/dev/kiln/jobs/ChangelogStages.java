package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.ingest.ChangelogDeserializer;
import dev.kiln.ingest.ChangelogRecordParser;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ParentChange;
import dev.kiln.model.ParentChunk;
import dev.kiln.model.RawRecord;
import dev.kiln.model.ShardChange;
import dev.kiln.operators.ChangelogParseFunction;
import dev.kiln.operators.ChangelogResolveFunction;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.ParseFunction;
import dev.kiln.operators.QuarantinedRecord;
import dev.kiln.operators.ReportingStages;
import dev.kiln.operators.SourcedDocument;
import dev.kiln.operators.StageReport;
import dev.kiln.operators.StageReports;
import dev.kiln.operators.types.KilnTypeInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.kafka.common.TopicPartition;

/**
 * The stages a changelog build adds to the job: a bounded Kafka source over the planned offset range,
 * the changelog parser, op resolution per id; upserted documents then go through the ordinary chunk
 * and embed stages, and removals meet the fresh chunks at the changelog shard writer.
 */
final class ChangelogStages {
  private ChangelogStages() {}

  /** Upserted documents, ids to remove from the base, and quarantined records. */
  record Streams(DataStream<SourcedDocument> upserts, DataStream<ShardChange> removals,
      DataStream<ParentChange> parentRemovals, DataStream<QuarantinedRecord> quarantine,
      DataStream<StageReport> reports) {}

  static Streams read(StreamExecutionEnvironment env, ChangelogPlan plan, BuildConfig config, String snapshotId) {
    Properties client = new Properties();
    client.putAll(config.changelog.properties);
    KafkaSource<RawRecord> source = KafkaSource.<RawRecord>builder()
        .setProperties(client)
        .setBootstrapServers(plan.bootstrap())
        .setTopics(plan.topic())
        .setGroupId("kiln-build-" + snapshotId)
        .setClientIdPrefix("kiln-build-" + snapshotId)
        // Offsets live in the snapshot manifest, not in the consumer group.
        .setProperty("commit.offsets.on.checkpoint", "false")
        .setProperty("enable.auto.commit", "false")
        .setStartingOffsets(OffsetsInitializer.offsets(partitions(plan.topic(), plan.start())))
        .setBounded(OffsetsInitializer.offsets(partitions(plan.topic(), plan.end())))
        .setDeserializer(new ChangelogDeserializer())
        .build();
    DataStream<RawRecord> raw = env.fromSource(source, WatermarkStrategy.noWatermarks(), "read-changelog");
    SingleOutputStreamOperator<ChangeOp> ops = ReportingStages.process(raw, "parse-changelog",
        new ChangelogParseFunction(new ChangelogRecordParser(plan.topic(), config.ingest, config.changelog)), ChangeOp.class,
        JobCounters.CHANGELOG_PARSE_STAGE);
    SingleOutputStreamOperator<ChangeOp> winners = ReportingStages.process(ops.keyBy(new OpId()), "resolve-ops",
        new ChangelogResolveFunction(), ChangeOp.class, JobCounters.CHANGELOG_RESOLVE_STAGE);
    DataStream<SourcedDocument> upserts = winners.flatMap(new Upserted()).name("upserted-documents");
    DataStream<ShardChange> removals = winners.map(new Removal(), KilnTypeInfo.SHARD_CHANGE).name("removals");
    DataStream<ParentChange> parentRemovals = winners.map(new ParentRemoval()).name("parent-removals");
    return new Streams(upserts, removals, parentRemovals, ops.getSideOutput(ParseFunction.QUARANTINE),
        ops.getSideOutput(StageReports.TAG).union(winners.getSideOutput(StageReports.TAG)));
  }

  private static Map<TopicPartition, Long> partitions(String topic, Map<Integer, Long> offsets) {
    Map<TopicPartition, Long> m = new HashMap<>();
    offsets.forEach((p, o) -> m.put(new TopicPartition(topic, p), o));
    return m;
  }

  static final class OpId implements KeySelector<ChangeOp, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(ChangeOp op) {
      return op.id();
    }
  }

  /** The winning upserts, positioned by their log offset (the continuing writers need no position). */
  static final class Upserted implements FlatMapFunction<ChangeOp, SourcedDocument> {
    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(ChangeOp op, Collector<SourcedDocument> out) {
      if (op.kind() == ChangeOp.Kind.UPSERT) {
        out.collect(new SourcedDocument(op.document(), op.offset()));
      }
    }
  }

  /** Every winning op removes the id's base chunks; an upsert's fresh chunks come separately. */
  static final class Removal implements MapFunction<ChangeOp, ShardChange> {
    private static final long serialVersionUID = 1L;

    @Override
    public ShardChange map(ChangeOp op) {
      return ShardChange.remove(op.id(), op.kind() == ChangeOp.Kind.DELETE);
    }
  }

  static final class ParentRemoval implements MapFunction<ChangeOp, ParentChange> {
    private static final long serialVersionUID = 1L;

    @Override
    public ParentChange map(ChangeOp op) {
      return ParentChange.remove(op.id());
    }
  }

  static final class FreshParent implements MapFunction<ParentChunk, ParentChange> {
    private static final long serialVersionUID = 1L;

    @Override
    public ParentChange map(ParentChunk p) {
      return ParentChange.add(p);
    }
  }

  static final class Fresh implements MapFunction<EmbeddedChunk, ShardChange> {
    private static final long serialVersionUID = 1L;

    @Override
    public ShardChange map(EmbeddedChunk c) {
      return ShardChange.add(c);
    }
  }
}
