package dev.kiln.publish;

import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a running build's {@code STAGING} marker alive: rewrites its {@code heartbeat} every
 * {@link #interval()} while the build runs, so that gc on any host — which collects a building marker
 * only once its heartbeat is older than the grace period — never removes a live build's data, however
 * long the build takes. It stops on {@link #close()} (before the manifest is written) and on its own
 * when the marker is no longer this build's (gc took it over, or it is gone).
 */
public final class StagingHeartbeat implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StagingHeartbeat.class);
  /** Default interval; {@code -Dkiln.staging.heartbeat-ms=N} changes it (tests use a short one). */
  public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(Long.getLong("kiln.staging.heartbeat-ms", 60_000));

  private final SnapshotStorage storage;
  private final String id;
  private final StagingMarker marker;
  private final Duration interval;
  private final ScheduledExecutorService timer;

  private StagingHeartbeat(SnapshotStorage storage, String id, StagingMarker marker, Duration interval) {
    this.storage = storage;
    this.id = id;
    this.marker = marker;
    this.interval = interval;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kiln-staging-heartbeat-" + id);
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts beating for the marker {@code marker} of snapshot {@code id}. */
  public static StagingHeartbeat start(SnapshotStorage storage, String id, StagingMarker marker, Duration interval) {
    StagingHeartbeat h = new StagingHeartbeat(storage, id, marker, interval);
    // beat catches everything, so the schedule never ends with a failure to look at.
    Future<?> unused =
        h.timer.scheduleWithFixedDelay(h::beat, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return h;
  }

  public Duration interval() {
    return interval;
  }

  private void beat() {
    try {
      String key = SnapshotLayout.stagingKey(id);
      Optional<byte[]> now = storage.read(key, SnapshotLayout.MAX_RECORD_BYTES);
      StagingMarker there = now.isEmpty() ? null : SnapshotStore.json().readValue(now.get(), StagingMarker.class);
      if (there == null || !marker.sameBuild(there) || !StagingMarker.BUILDING.equals(there.state())) {
        LOG.warn("staging marker of {} is no longer this build's ({}): heartbeat stopped", id,
            there == null ? "gone" : there.state() + " by " + there.owner());
        timer.shutdown();
        return;
      }
      storage.write(key, SnapshotStore.json().writeValueAsBytes(there.beat(Instant.now())));
    } catch (Throwable t) {
      // A missed beat is harmless (the grace period spans many); the next one tries again.
      LOG.warn("heartbeat of {} failed: {}", id, t.toString());
    }
  }

  /** Stops beating and waits for a beat in progress, so none lands after the manifest. */
  @Override
  public void close() {
    timer.shutdown();
    try {
      if (!timer.awaitTermination(30, TimeUnit.SECONDS)) {
        timer.shutdownNow();
      }
    } catch (InterruptedException e) {
      timer.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
