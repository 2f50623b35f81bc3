package dev.kiln.operators;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.accumulators.Accumulator;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.util.OutputTag;

/** The side output every reporting stage sends its {@link StageReport} to, and how a report is read off a task. */
public final class StageReports {
  /** Side output of the reporting stages; the job unions them into the committer's input. */
  public static final OutputTag<StageReport> TAG = new OutputTag<>("kiln-stage-reports") {};

  private StageReports() {}

  /**
   * This subtask's values of {@code names}. Accumulators belong to the task, so operators chained into
   * one task must not both list a name: each stage lists only the counters it owns.
   */
  public static StageReport of(String stage, RuntimeContext ctx, List<String> names) {
    Map<String, Long> values = new LinkedHashMap<>();
    for (String name : names) {
      Accumulator<?, ?> a = ctx.getAccumulator(name);
      if (a != null && a.getLocalValue() instanceof Number n) {
        values.put(name, n.longValue());
      }
    }
    return StageReport.counters(stage, ctx.getTaskInfo().getIndexOfThisSubtask(), values);
  }
}
