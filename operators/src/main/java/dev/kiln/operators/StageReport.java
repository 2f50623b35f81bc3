package dev.kiln.operators;

import dev.kiln.model.ParentChange;
import dev.kiln.model.ShardResult;
import dev.kiln.snapshot.Manifest;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one subtask of one stage tells the job's committer when its input has ended: its counters
 * (the same names and local values as its Flink accumulators), and, for writers, what they wrote.
 * The committer runs inside the job, where accumulators cannot be read, so everything it needs to
 * verify, describe and publish a snapshot arrives as these records; a retried subtask's failed
 * attempt never reaches it (its output partition is discarded), so nothing is counted twice.
 *
 * @param stage the stage's name ({@code parse}, {@code embed}, {@code write-shards}, …)
 * @param subtask the subtask index
 * @param counters counter name → this subtask's value
 * @param shard a shard writer's result, else null
 * @param quarantine a quarantine writer's summary, else null
 * @param files files a writer wrote outside a shard (the parents docstore: names relative to its
 *     directory), empty otherwise
 * @param parentChanges an incremental shard writer's decisions the docstore writer follows
 *     ({@link ContinuedShard#parentChanges}), empty otherwise: such a report goes to the docstore writer,
 *     not the committer
 */
public record StageReport(String stage, int subtask, Map<String, Long> counters, ShardResult shard,
    QuarantineSummary quarantine, List<Manifest.FileEntry> files, List<ParentChange> parentChanges)
    implements Serializable {

  public StageReport {
    counters = new HashMap<>(counters); // plain collections: Flink ships them with Kryo
    files = new ArrayList<>(files);
    parentChanges = new ArrayList<>(parentChanges);
  }

  public StageReport(String stage, int subtask, Map<String, Long> counters, ShardResult shard,
      QuarantineSummary quarantine, List<Manifest.FileEntry> files) {
    this(stage, subtask, counters, shard, quarantine, files, List.of());
  }

  public static StageReport counters(String stage, int subtask, Map<String, Long> counters) {
    return new StageReport(stage, subtask, counters, null, null, List.of());
  }

  public static StageReport shard(ShardResult shard, Map<String, Long> counters) {
    return new StageReport("write-shards", shard.writerSubtask(), counters, shard, null, List.of());
  }

  /** Decisions of a shard writer for the docstore writer ({@link #parentChanges}). */
  public static StageReport parents(String stage, int subtask, List<ParentChange> changes) {
    return new StageReport(stage, subtask, Map.of(), null, null, List.of(), changes);
  }

  /** Whether this report carries a shard writer's decisions for the docstore writer. */
  public boolean forParents() {
    return !parentChanges.isEmpty();
  }
}
