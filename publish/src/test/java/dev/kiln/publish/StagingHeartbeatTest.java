package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The heartbeat a job takes over from its client, and a beat that races the commit. */
class StagingHeartbeatTest {
  private static final String ID = "20260101T000000Z-abcdef";
  private static final String STAGING = SnapshotLayout.stagingKey(ID);

  @TempDir Path root;

  /** A marker written by a client elsewhere (another host, a process that may be gone). */
  private static StagingMarker clientMarker(String nonce) {
    String started = Instant.now().minusSeconds(3600).toString();
    return new StagingMarker(StagingMarker.BUILDING, "client-host", 4242, started, null, "client-space", nonce,
        started);
  }

  private static StagingMarker read(SnapshotStorage storage) throws IOException {
    return SnapshotStore.json().readValue(storage.read(STAGING).orElseThrow(), StagingMarker.class);
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      Thread.sleep(10); // polling a condition
    }
  }

  @Test
  void theJobTakesTheClientsMarkerOverAndBeatsIt() throws Exception {
    SnapshotStorage storage = new LocalSnapshotStorage(root);
    StagingMarker client = clientMarker("n1");
    storage.write(STAGING, SnapshotStore.json().writeValueAsBytes(client));
    try (StagingHeartbeat h = StagingHeartbeat.takeOver(storage, ID, client, Duration.ofMillis(20)).orElseThrow()) {
      StagingMarker taken = read(storage);
      assertEquals(ProcessHandle.current().pid(), taken.pid(), "owned by the process that runs the build");
      assertEquals(StagingMarker.thisHostId(), taken.hostId());
      assertEquals("n1", taken.nonce(), "the same build");
      assertEquals(client.started(), taken.started());
      Instant takenAt = Instant.parse(taken.heartbeat());
      await("a beat", () -> {
        try {
          return Instant.parse(read(storage).heartbeat()).isAfter(takenAt);
        } catch (IOException e) {
          return false;
        }
      });
      assertEquals(Duration.ofMillis(20), h.interval());
    }
  }

  @Test
  void anotherBuildsMarkerIsNotTakenOver() throws Exception {
    SnapshotStorage storage = new LocalSnapshotStorage(root);
    byte[] other = SnapshotStore.json().writeValueAsBytes(clientMarker("someone-else"));
    storage.write(STAGING, other);
    assertTrue(StagingHeartbeat.takeOver(storage, ID, clientMarker("n1"), Duration.ofMillis(20)).isEmpty());
    assertArrayEquals(other, storage.read(STAGING).orElseThrow());
    storage.delete(STAGING);
    assertTrue(StagingHeartbeat.takeOver(storage, ID, clientMarker("n1"), Duration.ofMillis(20)).isEmpty(), "gone");
  }

  /**
   * A client still beating when the job takes over yields; a beat of its that lands after the takeover
   * does not keep the marker: the job's next beat takes it back.
   */
  @Test
  void aClientBeatCrossingTheTakeoverIsOverruledAndTheClientYields() throws Exception {
    SnapshotStorage storage = new LocalSnapshotStorage(root);
    StagingMarker client = clientMarker("n1");
    byte[] clientBytes = SnapshotStore.json().writeValueAsBytes(client);
    storage.write(STAGING, clientBytes);
    try (StagingHeartbeat clientBeat = StagingHeartbeat.start(storage, ID, client, Duration.ofMillis(20));
        StagingHeartbeat job = StagingHeartbeat.takeOver(storage, ID, client, Duration.ofMillis(20)).orElseThrow()) {
      long here = ProcessHandle.current().pid();
      storage.write(STAGING, SnapshotStore.json().writeValueAsBytes(client.beat(Instant.now()))); // the crossing beat
      await("the job to take the marker back", () -> {
        try {
          return read(storage).pid() == here;
        } catch (IOException e) {
          return false;
        }
      });
      Thread.sleep(200); // ten beats of each
      assertEquals(here, read(storage).pid(), "the client yielded: " + read(storage));
      assertEquals("n1", read(storage).nonce());
    }
  }

  /**
   * The commit writes the manifest and removes the marker between a beat's read and its write: the beat
   * puts the marker back, finds the manifest and removes the marker again, and beats no more.
   */
  @Test
  void aBeatThatRacesTheCommitLeavesNoMarkerBesideTheManifest() throws Exception {
    CommitDuringBeat storage = new CommitDuringBeat(new LocalSnapshotStorage(root));
    StagingMarker client = clientMarker("n1");
    storage.write(STAGING, SnapshotStore.json().writeValueAsBytes(client));
    try (StagingHeartbeat h = StagingHeartbeat.takeOver(storage, ID, client, Duration.ofMillis(20)).orElseThrow()) {
      storage.armed = true;
      await("the commit", () -> storage.committed);
      // The commit lands between the racing beat's read and its write: the conditional write finds the marker
      // gone and writes nothing; the next beat finds no marker and stops.
      await("a beat to read the marker's absence", () -> storage.readsAfterCommit.get() >= 1);
      assertTrue(storage.exists(SnapshotLayout.manifestKey(ID)));
      assertFalse(storage.exists(STAGING), "no marker beside the manifest");
      assertEquals(0, storage.stagingWritesAfterCommit.get(), "the racing beat wrote nothing back, and none after it");
    }
  }

  @Test
  void aBeatRacingGcsDeletingNeverOverwritesItAndStops() throws Exception {
    GcDuringBeat storage = new GcDuringBeat(new LocalSnapshotStorage(root));
    StagingMarker client = clientMarker("n1");
    storage.write(STAGING, SnapshotStore.json().writeValueAsBytes(client));
    try (StagingHeartbeat h = StagingHeartbeat.takeOver(storage, ID, client, Duration.ofMillis(20)).orElseThrow()) {
      storage.armed = true;
      await("gc's marker", () -> storage.deletingWritten);
      // The beat whose write lost, then the next beat: it reads gc's marker and stops without writing.
      await("a beat to read gc's marker", () -> storage.readsAfterGc.get() >= 1);
      assertEquals(StagingMarker.DELETING, read(storage).state(), "gc's marker stands");
      assertEquals(0, storage.beatsAfterGc.get(), "no beat landed over it, and none after it");
    }
  }

  /** Local storage in which gc marks the build deleting between a beat's read of the marker and its write. */
  private static final class GcDuringBeat extends DelegatingStorage {
    volatile boolean armed;
    volatile boolean deletingWritten;
    final AtomicInteger beatsAfterGc = new AtomicInteger();

    final AtomicInteger readsAfterGc = new AtomicInteger();

    GcDuringBeat(SnapshotStorage delegate) {
      super(delegate);
    }

    @Override
    public Optional<byte[]> read(String key, int maxBytes) throws IOException {
      Optional<byte[]> bytes = delegate.read(key, maxBytes);
      if (key.equals(STAGING) && deletingWritten) {
        readsAfterGc.incrementAndGet();
      }
      return bytes;
    }

    @Override
    public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
      if (key.equals(STAGING) && armed && !deletingWritten) {
        delegate.write(STAGING, SnapshotStore.json().writeValueAsBytes(
            StagingMarker.forThisProcess(StagingMarker.DELETING, null)));
        deletingWritten = true;
      }
      boolean written = delegate.compareAndSet(key, expected, update);
      if (written && key.equals(STAGING) && deletingWritten) {
        beatsAfterGc.incrementAndGet();
      }
      return written;
    }

    @Override
    public void write(String key, byte[] data) throws IOException {
      if (key.equals(STAGING) && deletingWritten) {
        beatsAfterGc.incrementAndGet();
      }
      delegate.write(key, data);
    }
  }

  /** Local storage whose next write of the marker is preceded by the commit (manifest, marker removed). */
  private static final class CommitDuringBeat extends DelegatingStorage {
    volatile boolean armed;
    volatile boolean committed;
    final AtomicInteger stagingWritesAfterCommit = new AtomicInteger();
    final AtomicInteger readsAfterCommit = new AtomicInteger();

    CommitDuringBeat(SnapshotStorage delegate) {
      super(delegate);
    }

    @Override
    public Optional<byte[]> read(String key, int maxBytes) throws IOException {
      Optional<byte[]> bytes = delegate.read(key, maxBytes);
      if (key.equals(STAGING) && committed) {
        readsAfterCommit.incrementAndGet();
      }
      return bytes;
    }

    @Override
    public void write(String key, byte[] data) throws IOException {
      commitIfArmed(key);
      if (key.equals(STAGING) && committed) {
        stagingWritesAfterCommit.incrementAndGet();
      }
      delegate.write(key, data);
    }

    @Override
    public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
      commitIfArmed(key);
      boolean written = delegate.compareAndSet(key, expected, update);
      if (written && key.equals(STAGING) && committed) {
        stagingWritesAfterCommit.incrementAndGet();
      }
      return written;
    }

    private void commitIfArmed(String key) throws IOException {
      if (key.equals(STAGING) && armed && !committed) {
        delegate.write(SnapshotLayout.manifestKey(ID), "{}".getBytes(StandardCharsets.UTF_8));
        delegate.delete(STAGING);
        committed = true;
      }
    }
  }
}
