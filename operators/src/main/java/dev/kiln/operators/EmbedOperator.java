package dev.kiln.operators;

import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.operators.types.KilnTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs {@link EmbedFunction} in the task thread: chunks are fed as they arrive, and the queued
 * remainder is embedded at end of input. Every record and the watermark leave through one thread.
 */
public final class EmbedOperator extends AbstractUdfStreamOperator<EmbeddedChunk, EmbedFunction>
    implements OneInputStreamOperator<Chunk, EmbeddedChunk>, BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private transient TimestampedCollector<EmbeddedChunk> collector;

  public EmbedOperator(EmbedFunction function) {
    super(function);
  }

  /** Adds the embed stage to {@code chunks}. */
  public static SingleOutputStreamOperator<EmbeddedChunk> embed(DataStream<Chunk> chunks, EmbedFunction function) {
    return chunks.transform("embed", KilnTypeInfo.EMBEDDED_CHUNK, new EmbedOperator(function));
  }

  @Override
  public void open() throws Exception {
    super.open();
    collector = new TimestampedCollector<>(output);
  }

  @Override
  public void processElement(StreamRecord<Chunk> record) {
    collector.setTimestamp(record);
    userFunction.add(record.getValue(), collector);
  }

  @Override
  public void endInput() {
    collector.eraseTimestamp();
    userFunction.finish(collector);
    output.collect(StageReports.TAG, new StreamRecord<>(StageReports.of("embed", getRuntimeContext(),
        JobCounters.EMBED_STAGE)));
  }
}
