package dev.kiln.publish;

import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
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
 * long the build takes. It stops on {@link #close()} and on its own when the marker is no longer this
 * build's (gc took it over, or it is gone) or the build has its manifest: a beat that wrote the marker
 * while the commit removed it finds the manifest and removes the marker again, so none stays beside a
 * committed snapshot. Every write of the marker is a compare-and-set against the bytes just read, so
 * gc's {@code deleting} (itself written the same way) is never overwritten by a beat that read the
 * marker before it. A build's job takes the marker over as it starts ({@link #takeOver}) and beats it
 * from the JobManager with no client attached; a client's heartbeat yields to it.
 */
public final class StagingHeartbeat implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StagingHeartbeat.class);
  /** Default interval; {@code -Dkiln.staging.heartbeat-ms=N} changes it (tests use a short one). */
  public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(Long.getLong("kiln.staging.heartbeat-ms", 60_000));

  private final SnapshotStorage storage;
  private final String id;
  private final StagingMarker marker;
  private final Duration interval;
  /** Compare-and-set attempts of a takeover that loses each to the client's own beat. */
  private static final int TAKEOVER_ATTEMPTS = 3;
  /** Whether this heartbeat took the marker over ({@link #takeOver}): it then owns every marker of the build. */
  private final boolean owner;
  private final ScheduledExecutorService timer;

  private StagingHeartbeat(SnapshotStorage storage, String id, StagingMarker marker, Duration interval,
      boolean owner) {
    this.storage = storage;
    this.id = id;
    this.marker = marker;
    this.interval = interval;
    this.owner = owner;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kiln-staging-heartbeat-" + id);
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts beating for the marker {@code marker} of snapshot {@code id}. */
  public static StagingHeartbeat start(SnapshotStorage storage, String id, StagingMarker marker, Duration interval) {
    return start(new StagingHeartbeat(storage, id, marker, interval, false));
  }

  private static StagingHeartbeat start(StagingHeartbeat h) {
    Duration interval = h.interval;
    // beat catches everything, so the schedule never ends with a failure to look at.
    Future<?> unused =
        h.timer.scheduleWithFixedDelay(h::beat, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return h;
  }

  /**
   * Takes over the marker of build {@code begun} (written by its client) for this process, and beats it
   * from here: what the job does, so that its build stays alive for gc when its client is gone (a
   * detached submission) and is judged by the process that runs it. Empty, with a warning, when the
   * marker is no longer that build's or cannot be read or written (the client's own heartbeat, where it
   * still runs, keeps the marker then).
   */
  public static Optional<StagingHeartbeat> takeOver(SnapshotStorage storage, String id, StagingMarker begun,
      Duration interval) {
    try {
      String key = SnapshotLayout.stagingKey(id);
      for (int attempt = 1; ; attempt++) {
        Optional<byte[]> now = storage.read(key, SnapshotLayout.MAX_RECORD_BYTES);
        StagingMarker there = now.isEmpty() ? null : SnapshotStore.json().readValue(now.get(), StagingMarker.class);
        if (there == null || there.nonce() == null || !there.nonce().equals(begun.nonce())
            || !StagingMarker.BUILDING.equals(there.state())) {
          LOG.warn("staging marker of {} is no longer this build's ({}): no heartbeat taken over", id,
              there == null ? "gone" : there.state() + " by " + there.owner());
          return Optional.empty();
        }
        StagingMarker mine = there.takenOverHere(Instant.now());
        // Conditional: a marker gc marked deleting meanwhile stays deleting. Lost to the client's own beat
        // (the same build), the takeover reads again.
        if (storage.compareAndSet(key, now.get(), SnapshotStore.json().writeValueAsBytes(mine))) {
          LOG.info("staging marker of {} taken over by {}; heartbeat every {} ms", id, mine.owner(),
              interval.toMillis());
          return Optional.of(start(new StagingHeartbeat(storage, id, mine, interval, true)));
        }
        if (attempt == TAKEOVER_ATTEMPTS) {
          throw new IOException("the marker changed under each of " + TAKEOVER_ATTEMPTS + " attempts");
        }
      }
    } catch (Exception e) {
      LOG.warn("cannot take over the staging marker of {}: {}; its build is kept alive for gc only while its client"
          + " beats it", id, e.toString());
      return Optional.empty();
    }
  }

  public Duration interval() {
    return interval;
  }

  private void beat() {
    try {
      String key = SnapshotLayout.stagingKey(id);
      Optional<byte[]> read = storage.read(key, SnapshotLayout.MAX_RECORD_BYTES);
      StagingMarker there = read.isEmpty() ? null : SnapshotStore.json().readValue(read.get(), StagingMarker.class);
      // A client's heartbeat beats only its own marker, so it yields once the job took the marker over. The
      // job's owns the build's marker whoever wrote it last (a client's beat that crossed the takeover).
      boolean ours = there != null && (owner ? marker.nonce().equals(there.nonce()) : marker.sameBuild(there));
      if (!ours || !StagingMarker.BUILDING.equals(there.state())) {
        if (there != null && StagingMarker.BUILDING.equals(there.state()) && Objects.equals(marker.nonce(), there.nonce())) {
          LOG.info("staging marker of {} taken over by {}: this heartbeat stops", id, there.owner());
        } else {
          LOG.warn("staging marker of {} is no longer this build's ({}): heartbeat stopped", id,
              there == null ? "gone" : there.state() + " by " + there.owner());
        }
        timer.shutdown();
        return;
      }
      Instant now = Instant.now();
      // Written only over the marker just read: gc's "deleting", written between this read and this write,
      // is never overwritten (it would keep a build gc is sweeping alive); the commit's removal is not
      // undone either. Whatever changed it, the next beat reads it again and stops if it is not ours.
      byte[] beaten = SnapshotStore.json().writeValueAsBytes(owner ? there.takenOverHere(now) : there.beat(now));
      if (!storage.compareAndSet(key, read.get(), beaten)) {
        LOG.info("staging marker of {} changed while it was beaten; read again at the next beat", id);
        return;
      }
      if (storage.exists(SnapshotLayout.manifestKey(id))) {
        // The build committed just after this beat's write (a store without conditional writes may also
        // have let the write land over the commit's removal): remove the marker; no heartbeat is needed.
        storage.delete(key);
        timer.shutdown();
      }
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
