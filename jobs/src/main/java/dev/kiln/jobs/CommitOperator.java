package dev.kiln.jobs;

import dev.kiln.config.ConfigException;
import dev.kiln.operators.StageReport;
import dev.kiln.snapshot.SnapshotException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The build job's last stage, at parallelism 1: gathers every stage's {@link StageReport} and, once
 * all of them have ended (batch mode runs it after every writer finished), commits the snapshot
 * ({@link BuildCommitter}). So a detached or application-mode job publishes with no client attached.
 *
 * <p>A failure the commit itself decided (bad input, a gate, a lost compare-and-set, a missing shard)
 * would fail the same way again, so it suppresses the job's restarts; an I/O failure is left to the
 * restart strategy (the commit is idempotent up to the manifest, and publishing checks CURRENT).
 * Metrics (group {@code kiln.commit}): {@code snapshot} (the id), {@code published} (0/1),
 * {@code commitMillis}.
 */
final class CommitOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<StageReport, Void>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final CommitPlan plan;
  private transient List<StageReport> reports;
  private transient ListAccumulator<String> result;
  private transient volatile int published;
  private transient volatile long commitMillis = -1;

  CommitOperator(CommitPlan plan) {
    this.plan = plan;
  }

  @Override
  public void open() throws Exception {
    super.open();
    reports = new ArrayList<>();
    result = new ListAccumulator<>();
    getRuntimeContext().addAccumulator(CommitResult.ACCUMULATOR, result);
    MetricGroup group = getMetricGroup().addGroup("kiln.commit");
    String id = plan.snapshotId;
    group.gauge("snapshot", () -> id);
    group.gauge("published", () -> published);
    group.gauge("commitMillis", () -> commitMillis);
  }

  @Override
  public void processElement(StreamRecord<StageReport> element) {
    reports.add(element.getValue());
  }

  @Override
  public void endInput() throws Exception {
    CommitResult r;
    try {
      r = new BuildCommitter(plan).commit(reports);
    } catch (SnapshotException | ConfigException | BadInputCheck.TooMuchBadInputException e) {
      throw new SuppressRestartsException(e);
    }
    published = r.published() ? 1 : 0;
    commitMillis = r.commitMillis();
    result.add(r.toJson());
  }
}
