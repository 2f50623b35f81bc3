package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ChangelogConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.operators.fs.BaseFiles;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What a changelog build reads, decided in the client before the job starts: the base snapshot
 * (verified, and checked to be compatible: same shard count, model, chunker and analyzer, same
 * topic), and per partition the offset range [start, end): start = the next offset the base
 * recorded for the partition (the earliest offset for partitions it did not record), end = the
 * partition's end offset now. Anything wrong fails here with the option to fix.
 *
 * @param base the base snapshot's id, or {@code null} when the build starts from empty shards
 * @param baseManifest its manifest, or {@code null}
 */
public record ChangelogPlan(String topic, String bootstrap, String base, Manifest baseManifest,
    Map<Integer, Long> start, Map<Integer, Long> end) {

  /** Chunks in the base snapshot (0 without a base). */
  public long baseChunks() {
    return baseManifest == null ? 0 : baseManifest.totalChunks();
  }

  /** Records in the range. */
  public long records() {
    long n = 0;
    for (Map.Entry<Integer, Long> e : end.entrySet()) {
      n += e.getValue() - start.getOrDefault(e.getKey(), e.getValue());
    }
    return n;
  }

  public Map<String, Long> endOffsets() {
    return names(end);
  }

  public Map<String, Long> startOffsets() {
    return names(start);
  }

  private static Map<String, Long> names(Map<Integer, Long> offsets) {
    Map<String, Long> m = new TreeMap<>((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b)));
    offsets.forEach((p, o) -> m.put(Integer.toString(p), o));
    return m;
  }

  /** Resolves the base and asks the brokers for the range. */
  static ChangelogPlan plan(BuildContext ctx, SnapshotStore store) {
    BuildConfig config = ctx.config();
    ChangelogConfig c = config.changelog;
    String base = baseId(c, store, config.snapshots);
    // Every byte of a local base is hashed; a remote one's files are hashed by the writers that download them.
    Manifest manifest = base == null ? null : ctx.target().continuableBase(store, base, true);
    if (manifest != null) {
      checkCompatible(ctx, c, base, manifest);
    }
    Map<Integer, Long> recorded = new TreeMap<>();
    if (manifest != null && manifest.changelog() != null) {
      manifest.changelog().offsets().forEach((p, o) -> recorded.put(Integer.parseInt(p), o));
    }
    Map<Integer, Long> earliest = new TreeMap<>();
    Map<Integer, Long> latest = new TreeMap<>();
    offsets(c, earliest, latest);
    Map<Integer, Long> start = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (int p : latest.keySet()) {
      long from = recorded.getOrDefault(p, earliest.get(p));
      if (from < earliest.get(p)) {
        problems.add("partition " + p + ": the base recorded offset " + from + " but the topic now starts at "
            + earliest.get(p) + " (records were removed by retention)");
      } else if (from > latest.get(p)) {
        problems.add("partition " + p + ": the base recorded offset " + from + " beyond the topic's end "
            + latest.get(p) + " (was the topic recreated?)");
      }
      start.put(p, from);
    }
    for (int p : recorded.keySet()) {
      if (!latest.containsKey(p)) {
        problems.add("partition " + p + " is recorded in base snapshot " + base + " but the topic has no such partition");
      }
    }
    if (!problems.isEmpty()) {
      throw new SnapshotException("--changelog-topic " + c.topic + ": the base snapshot " + base
          + " cannot be continued: " + String.join("; ", problems) + ". Rebuild from a corpus or from the topic"
          + " with a new base (--base-snapshot)");
    }
    return new ChangelogPlan(c.topic, c.bootstrap, base, manifest, start, latest);
  }

  /** What the changelog writers get of the base, as the target gives it, or null (no base: empty shards). */
  BaseFiles baseFiles(SnapshotsTarget target) {
    return baseManifest == null ? null : target.base(baseManifest);
  }

  private static String baseId(ChangelogConfig c, SnapshotStore store, String root) {
    if (!c.baseSnapshot.equals("current")) {
      if (!SnapshotLayout.isSnapshotId(c.baseSnapshot) || !store.hasManifest(c.baseSnapshot)) {
        throw new ConfigException("--base-snapshot " + c.baseSnapshot + ": no such snapshot under "
            + root + " (snapshots: " + store.list() + ")");
      }
      return c.baseSnapshot;
    }
    return store.current().orElse(null);
  }

  private static void checkCompatible(BuildContext ctx, ChangelogConfig c, String base, Manifest m) {
    BuildConfig config = ctx.config();
    if (m.shards().size() != config.shards) {
      throw new ConfigException("--shards " + config.shards + " differs from base snapshot " + base + ", which has "
          + m.shards().size() + " shards: a changelog build keeps the base's routing; pass --shards "
          + m.shards().size());
    }
    if (m.model() == null || !ctx.modelFingerprint().equals(m.model().fingerprint())) {
      throw new ConfigException("--model " + config.embed.model + " differs from base snapshot " + base + "'s model "
          + (m.model() == null ? "?" : m.model().source()) + ": its vectors could not be searched together;"
          + " pass --model " + (m.model() == null ? "?" : m.model().source()));
    }
    String chunker = ctx.chunkerFingerprint();
    if (m.chunker() != null && m.chunker().fingerprint() != null && !m.chunker().fingerprint().equals(chunker)) {
      throw new ConfigException("chunker settings differ from base snapshot " + base + " (strategy "
          + m.chunker().strategy() + ", size " + m.chunker().size() + ", overlap " + m.chunker().overlap()
          + "): use the base's chunker.* settings for a changelog build");
    }
    if (m.index() != null && !config.index.analyzer.equals(m.index().analyzer())) {
      throw new ConfigException("index.analyzer " + config.index.analyzer + " differs from base snapshot " + base
          + "'s analyzer " + m.index().analyzer());
    }
    if (!config.index.rangeTypes().equals(m.rangeTypes())) {
      // The base's chunks are copied as they are: their range points follow the base's settings.
      throw new ConfigException("index.range-fields " + config.index.rangeTypes() + " differ from base snapshot " + base
          + "'s " + m.rangeTypes() + ": use the base's range fields for a changelog build, or rebuild from the corpus");
    }
    if (m.changelog() != null && !m.changelog().topic().equals(c.topic)) {
      throw new ConfigException("--changelog-topic " + c.topic + ": base snapshot " + base
          + " continues topic '" + m.changelog().topic() + "'; pass that topic or another --base-snapshot");
    }
  }

  private static void offsets(ChangelogConfig c, Map<Integer, Long> earliest, Map<Integer, Long> latest) {
    Properties props = new Properties();
    props.putAll(c.properties);
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, c.bootstrap);
    int timeoutMs = c.timeoutSeconds * 1000;
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMs, 30_000));
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "kiln-changelog-plan");
    Admin created;
    try {
      created = Admin.create(props);
    } catch (KafkaException e) {
      throw new ConfigException("changelog.properties: the Kafka client rejects them: "
          + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
    }
    try (Admin admin = created) {
      TopicDescription topic;
      try {
        topic = admin.describeTopics(List.of(c.topic)).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS)
            .get(c.topic);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException) {
          throw new ConfigException("--changelog-topic " + c.topic + ": no such topic on " + c.bootstrap);
        }
        if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
          throw unreachable(c);
        }
        throw new ConfigException("--kafka-bootstrap " + c.bootstrap + ": cannot describe topic " + c.topic + ": "
            + e.getCause().getMessage(), e.getCause());
      } catch (TimeoutException e) {
        throw unreachable(c);
      }
      Map<TopicPartition, OffsetSpec> first = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
      Map<TopicPartition, OffsetSpec> last = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
      topic.partitions().forEach(p -> {
        first.put(new TopicPartition(c.topic, p.partition()), OffsetSpec.earliest());
        last.put(new TopicPartition(c.topic, p.partition()), OffsetSpec.latest());
      });
      admin.listOffsets(first).all().get(timeoutMs, TimeUnit.MILLISECONDS)
          .forEach((tp, info) -> earliest.put(tp.partition(), info.offset()));
      admin.listOffsets(last).all().get(timeoutMs, TimeUnit.MILLISECONDS)
          .forEach((tp, info) -> latest.put(tp.partition(), info.offset()));
    } catch (ExecutionException | TimeoutException e) {
      throw new ConfigException("--kafka-bootstrap " + c.bootstrap + ": cannot list the offsets of " + c.topic + ": "
          + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConfigException("interrupted while asking " + c.bootstrap + " for the offsets of " + c.topic, e);
    }
  }

  private static ConfigException unreachable(ChangelogConfig c) {
    return new ConfigException("--kafka-bootstrap " + c.bootstrap + ": no Kafka broker answered within "
        + c.timeoutSeconds + " s (changelog.timeout-seconds); check the address");
  }

}
