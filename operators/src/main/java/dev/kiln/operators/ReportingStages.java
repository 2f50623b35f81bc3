package dev.kiln.operators;

import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Adds a process function as a stage that, at end of input, sends its counters to
 * {@link StageReports#TAG} for the job's committer. Flink's process operators have no end-of-input
 * hook of their own; these subclasses add one and change nothing else.
 */
public final class ReportingStages {
  private ReportingStages() {}

  /** A stage function told when its subtask's input has ended (before its report is sent). */
  public interface EndOfInput {
    void endOfInput();
  }

  /** {@code input.process(function)} under {@code name}, reporting {@code counters} at end of input. */
  public static <I, O> SingleOutputStreamOperator<O> process(DataStream<I> input, String name,
      ProcessFunction<I, O> function, Class<O> type, List<String> counters) {
    return process(input, name, function, TypeInformation.of(type), counters);
  }

  /** As above, with the output's type given (a type with a serializer of its own). */
  public static <I, O> SingleOutputStreamOperator<O> process(DataStream<I> input, String name,
      ProcessFunction<I, O> function, TypeInformation<O> type, List<String> counters) {
    return input.transform(name, type, new Reporting<>(name, function, counters));
  }

  /** {@code keyed.process(function)} under {@code name}, reporting {@code counters} at end of input. */
  public static <K, I, O> SingleOutputStreamOperator<O> process(KeyedStream<I, K> keyed, String name,
      KeyedProcessFunction<K, I, O> function, Class<O> type, List<String> counters) {
    return keyed.transform(name, TypeInformation.of(type), new KeyedReporting<>(name, function, counters));
  }

  static final class Reporting<I, O> extends ProcessOperator<I, O> implements BoundedOneInput {
    private static final long serialVersionUID = 1L;
    private final String stage;
    private final List<String> counters;

    Reporting(String stage, ProcessFunction<I, O> function, List<String> counters) {
      super(function);
      this.stage = stage;
      this.counters = List.copyOf(counters);
    }

    @Override
    public void endInput() {
      if (userFunction instanceof EndOfInput e) {
        e.endOfInput();
      }
      output.collect(StageReports.TAG, new StreamRecord<>(StageReports.of(stage, getRuntimeContext(), counters)));
    }
  }

  static final class KeyedReporting<K, I, O> extends KeyedProcessOperator<K, I, O> implements BoundedOneInput {
    private static final long serialVersionUID = 1L;
    private final String stage;
    private final List<String> counters;

    KeyedReporting(String stage, KeyedProcessFunction<K, I, O> function, List<String> counters) {
      super(function);
      this.stage = stage;
      this.counters = List.copyOf(counters);
    }

    @Override
    public void endInput() {
      if (userFunction instanceof EndOfInput e) {
        e.endOfInput();
      }
      output.collect(StageReports.TAG, new StreamRecord<>(StageReports.of(stage, getRuntimeContext(), counters)));
    }
  }
}
