package dev.kiln.operators;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MeterView;
import org.apache.flink.metrics.MetricGroup;

/**
 * The embed stage's live Flink metrics, in the operator's group (web UI, any metrics reporter): they
 * move while the job runs, unlike the accumulators behind the closing counters table, which arrive
 * when it ends.
 */
public final class EmbedMetrics {
  /** Chunks the model embedded. */
  public static final String EMBEDDED = "chunksEmbedded";
  /** Chunks passed through with a stored vector of an earlier snapshot. */
  public static final String REUSED = "chunksReused";
  /** Chunks whose content key this subtask had already stored: the vector store keeps one per key. */
  public static final String DEDUPLICATED = "chunksDeduplicated";
  /** Chunks cut to the model's input limit. */
  public static final String TRUNCATED = "chunksTruncated";
  /** Chunks leaving the stage (embedded + reused + deduplicated) per second, over Flink's default meter window. */
  public static final String RATE = "chunksPerSecond";
  /** The slot's device, {@code cpu} or {@code gpu:N}; {@code none} until the model is loaded. */
  public static final String DEVICE = "device";

  private final Counter embedded;
  private final Counter reused;
  private final Counter deduplicated;
  private final Counter truncated;
  private final Counter out;
  private final StageProgress progress;
  private volatile String device = "none";

  EmbedMetrics(MetricGroup group, StageProgress progress) {
    this.progress = progress;
    embedded = group.counter(EMBEDDED);
    reused = group.counter(REUSED);
    deduplicated = group.counter(DEDUPLICATED);
    truncated = group.counter(TRUNCATED);
    out = group.counter("chunksOut");
    group.meter(RATE, new MeterView(out));
    group.gauge(DEVICE, (Gauge<String>) () -> device);
  }

  void embedded(long n) {
    embedded.inc(n);
    out.inc(n);
    progress.advance(n);
  }

  void reused() {
    reused.inc();
    out.inc();
    progress.advance(1);
  }

  void deduplicated() {
    deduplicated.inc();
    out.inc();
    progress.advance(1);
  }

  void truncated(long n) {
    truncated.inc(n);
  }

  void device(String d) {
    device = d;
  }
}
