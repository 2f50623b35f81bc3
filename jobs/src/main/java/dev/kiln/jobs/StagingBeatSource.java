package dev.kiln.jobs;

import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.publish.StagingHeartbeat;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's own {@code STAGING} heartbeat: a source without records whose split enumerator — which Flink
 * runs in the JobManager from the job's start to its end, whatever tasks run or wait for slots — takes the
 * snapshot's marker over from the client that wrote it ({@link StagingHeartbeat#takeOver}: the
 * JobManager's process owns it from then on) and beats it until the job ends. So {@code kiln snapshots gc}
 * keeps a build whose client is gone (a detached submission) for as long as the job runs, and does not
 * judge it by that client's process. A beat after the commit removed the marker removes what it wrote
 * ({@link StagingHeartbeat}). The source's one reader ends at once. The JobManager must reach the
 * snapshots root for this (docs/DEPLOYMENT.md); where it cannot, it logs why and the job goes on.
 */
final class StagingBeatSource implements Source<Void, StagingBeatSource.NoSplit, Void> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(StagingBeatSource.class);

  private final SnapshotsTarget target;
  private final String snapshotId;
  /** The client's marker as JSON ({@link StagingMarker} is a Jackson record, not {@code Serializable}). */
  private final byte[] begun;
  private final long intervalMillis;

  StagingBeatSource(SnapshotsTarget target, String snapshotId, StagingMarker begun, Duration interval) {
    this.target = target;
    this.snapshotId = snapshotId;
    try {
      this.begun = SnapshotStore.json().writeValueAsBytes(begun);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.intervalMillis = interval.toMillis();
  }

  /** This source has no splits; the type exists because Flink's source API needs one. */
  static final class NoSplit implements SourceSplit {
    @Override
    public String splitId() {
      return "none";
    }
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<Void, NoSplit> createReader(SourceReaderContext context) {
    return new EmptyReader();
  }

  @Override
  public SplitEnumerator<NoSplit, Void> createEnumerator(SplitEnumeratorContext<NoSplit> context) throws IOException {
    return new Beat(context, SnapshotStore.json().readValue(begun, StagingMarker.class));
  }

  @Override
  public SplitEnumerator<NoSplit, Void> restoreEnumerator(SplitEnumeratorContext<NoSplit> context, Void checkpoint)
      throws IOException {
    return createEnumerator(context);
  }

  @Override
  public SimpleVersionedSerializer<NoSplit> getSplitSerializer() {
    return new Nothing<>(NoSplit::new);
  }

  @Override
  public SimpleVersionedSerializer<Void> getEnumeratorCheckpointSerializer() {
    return new Nothing<>(() -> null);
  }

  /** The enumerator: the heartbeat, in the JobManager, from the job's start to its end. */
  private final class Beat implements SplitEnumerator<NoSplit, Void> {
    private final SplitEnumeratorContext<NoSplit> context;
    private final StagingMarker marker;
    private StagingHeartbeat heartbeat;

    Beat(SplitEnumeratorContext<NoSplit> context, StagingMarker marker) {
      this.context = context;
      this.marker = marker;
    }

    @Override
    public void start() {
      try {
        heartbeat = StagingHeartbeat.takeOver(target.store().storage(), snapshotId, marker,
            Duration.ofMillis(intervalMillis)).orElse(null);
      } catch (RuntimeException e) {
        // Never the job's failure: the build goes on; only gc's view of it depends on the heartbeat.
        LOG.warn("cannot open the snapshots root {} from the JobManager for the staging heartbeat of {}: {}",
            target.root(), snapshotId, e.toString());
      }
    }

    @Override
    public void addReader(int subtaskId) {
      context.signalNoMoreSplits(subtaskId);
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
      context.signalNoMoreSplits(subtaskId);
    }

    @Override
    public void addSplitsBack(List<NoSplit> splits, int subtaskId) {
      // none were given
    }

    @Override
    public Void snapshotState(long checkpointId) {
      return null;
    }

    @Override
    public void close() {
      if (heartbeat != null) {
        heartbeat.close();
      }
    }
  }

  /** The reader: no records; it ends once the enumerator says there are no splits. */
  private static final class EmptyReader implements SourceReader<Void, NoSplit> {
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    @Override
    public void start() {
      // nothing to start
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Void> output) {
      return ended.isDone() ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public List<NoSplit> snapshotState(long checkpointId) {
      return List.of();
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return ended;
    }

    @Override
    public void addSplits(List<NoSplit> splits) {
      // none are given
    }

    @Override
    public void notifyNoMoreSplits() {
      ended.complete(null);
    }

    @Override
    public void close() {
      // nothing held
    }
  }

  /** Serializes the one value of a type with no state. */
  private static final class Nothing<T> implements SimpleVersionedSerializer<T> {
    private final Supplier<T> value;

    Nothing(Supplier<T> value) {
      this.value = value;
    }

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(T obj) {
      return new byte[0];
    }

    @Override
    public T deserialize(int version, byte[] serialized) {
      return value.get();
    }
  }
}
