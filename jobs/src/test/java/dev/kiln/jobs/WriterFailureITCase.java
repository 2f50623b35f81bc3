package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.operators.TaskThreadFailures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;

/**
 * A partition writer that throws, run as the build runs its writers (batch {@code mapPartition},
 * wrapped in {@link TaskThreadFailures}) on a real mini-cluster: the job fails with the writer's
 * exception, in bounded time. Unwrapped, the same exception reaches Flink's fatal-exit handler on the
 * mapPartition thread (which would stop this JVM) and leaves the task thread waiting forever.
 */
class WriterFailureITCase {
  /** Fails on the record it is told to, like a writer whose disk or upload fails mid-partition. */
  static final class FailingWriter extends RichMapPartitionFunction<Long, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void mapPartition(Iterable<Long> values, Collector<String> out) {
      List<Long> seen = new ArrayList<>();
      for (long v : values) {
        if (v == 500) {
          throw new IllegalStateException("writer failed at record 500 of " + seen.size() + " seen");
        }
        seen.add(v);
      }
      out.collect("wrote " + seen.size());
    }
  }

  @Test
  void aWriterExceptionFailsTheJobInsteadOfTheTaskManager() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = BuildJob.localEnvironment(1, conf);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.fromSequence(0, 2000)
        .fullWindowPartition()
        .mapPartition(TaskThreadFailures.of(new FailingWriter()))
        .returns(String.class)
        .print();
    Exception e = assertTimeoutPreemptively(Duration.ofMinutes(2),
        () -> assertThrows(Exception.class, () -> env.execute("failing writer")));
    assertTrue(ExceptionUtils.findThrowableWithMessage(e, "writer failed at record 500").isPresent(),
        ExceptionUtils.stringifyException(e));
  }
}
