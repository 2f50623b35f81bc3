package dev.kiln.publish;

import dev.kiln.snapshot.HeldRecord;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import dev.kiln.snapshot.VerifyReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes snapshots visible, and moves {@code CURRENT} between them. This is where a snapshot is
 * published. The protocol needs no rename, so it holds on object stores too (docs/FORMATS.md):
 *
 * <ol>
 *   <li>{@link #begin}: write {@code snapshots/ID/STAGING} before any shard file (marks the data as
 *       unfinished for {@code gc});
 *   <li>shard files are written, never modified afterwards;
 *   <li>{@link #writeManifest}: the manifest is the commit record — from now on the snapshot is
 *       complete; then the staging marker is removed;
 *   <li>{@link #publish}: verify every file against the manifest (and record it in {@code VERIFIED}),
 *       then, under the root's lock, compare-and-set {@code CURRENT} from the id the build started
 *       from to the new id, then read it back.
 * </ol>
 *
 * A crash before step 4 completes leaves {@code CURRENT} naming the previous, complete snapshot.
 */
public final class SnapshotPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotPublisher.class);

  private final SnapshotStore store;
  private final SnapshotStorage storage;

  public SnapshotPublisher(SnapshotStore store) {
    this.store = store;
    this.storage = store.storage();
  }

  /** A publisher for a local snapshots root. */
  public SnapshotPublisher(SnapshotLayout layout) {
    this(new SnapshotStore(layout, new LocalSnapshotStorage(layout.root())));
  }

  public SnapshotStore store() {
    return store;
  }

  /**
   * Marks a new snapshot as being built from {@code base} (the snapshot whose files it continues, or
   * null), then checks, under the root's lock, that the base still has its manifest. From then on gc
   * keeps the base for as long as this marker shows a running build; a base gc removed before the
   * marker was seen fails the build here, before it writes anything else, and the marker is removed.
   *
   * @return the marker written (its nonce identifies this build for {@link StagingHeartbeat})
   * @throws SnapshotException when the base was removed
   */
  public StagingMarker begin(String id, String base) {
    StagingMarker marker = StagingMarker.forThisProcess(StagingMarker.BUILDING, base);
    writeMarker(id, marker);
    if (base == null) {
      return marker;
    }
    boolean there;
    try {
      // Under the lock gc holds while it reads the markers and deletes manifests: either gc saw this
      // marker (and keeps the base), or its deletion is over and the manifest is seen to be gone.
      there = storage.locked(SnapshotLayout.CURRENT, () -> store.hasManifest(base));
    } catch (IOException | SnapshotException e) {
      dropMarker(id);
      throw new SnapshotException("cannot check that base snapshot " + base + " is still there: " + e.getMessage(), e);
    }
    if (!there) {
      dropMarker(id);
      throw new SnapshotException("snapshot " + base + ", which this build continues, was removed (by 'kiln snapshots"
          + " gc') before the build began; nothing was written. Run the build again: it starts from the snapshot"
          + " CURRENT names now");
    }
    return marker;
  }

  /**
   * {@link #begin}, unless another build of this root runs ({@link RunningBuilds} with {@code fresh}):
   * the look and the marker's write happen under the root's lock on {@code CURRENT}, so of two builds
   * starting together exactly one sees the other and is refused. The marker is tracked as running in
   * this process ({@link RunningBuilds#track}); the caller untracks it when the build ends.
   *
   * @throws BuildRunningException when another build runs; nothing was written
   */
  public StagingMarker beginAlone(String id, String base, Duration fresh) {
    List<RunningBuilds.Running> running = new ArrayList<>();
    StagingMarker begun;
    try {
      begun = storage.locked(SnapshotLayout.CURRENT, () -> {
        running.addAll(RunningBuilds.scan(store, Instant.now(), fresh, id));
        if (!running.isEmpty()) {
          return null;
        }
        StagingMarker marker = begin(id, base);
        RunningBuilds.track(marker); // before the lock is let go: a build of this process sees it running
        return marker;
      });
    } catch (IOException e) {
      throw new SnapshotException("cannot look for running builds under " + store.layout().root() + ": "
          + e.getMessage(), e);
    }
    if (begun != null) {
      return begun;
    }
    Instant now = Instant.now();
    throw new BuildRunningException("another build of " + store.layout().root() + " is running: "
        + String.join("; ", running.stream().map(r -> r.describe(now)).toList())
        + ". Nothing was written. Run this build once it has finished, or with --set concurrent-builds=wait to"
        + " wait for it (a build whose process died stops counting when its heartbeat is " + fresh.toSeconds()
        + " s old)", running);
  }

  /** Removes the marker (and directory) of a build that stopped before writing anything else. */
  private void dropMarker(String id) {
    try {
      storage.delete(SnapshotLayout.stagingKey(id));
      SnapshotSweep.removeEmpty(storage, id);
    } catch (IOException e) {
      LOG.warn("could not remove the staging marker of {} ({}); 'kiln snapshots gc' removes it", id, e.getMessage());
    }
  }

  void writeMarker(String id, StagingMarker marker) {
    try {
      storage.write(SnapshotLayout.stagingKey(id), SnapshotStore.json().writeValueAsBytes(marker));
    } catch (IOException e) {
      throw new SnapshotException("cannot write the staging marker of " + id + ": " + e.getMessage(), e);
    }
  }

  /** Writes the manifest (the commit record) of a snapshot whose shard files are complete. */
  public void writeManifest(Manifest manifest) {
    try {
      storage.write(SnapshotLayout.manifestKey(manifest.id()), SnapshotStore.json().writeValueAsBytes(manifest));
      storage.delete(SnapshotLayout.stagingKey(manifest.id()));
    } catch (IOException e) {
      throw new SnapshotException("cannot write the manifest of " + manifest.id() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Holds a snapshot that failed a gate: writes {@code HELD} (before the manifest, so it is never
   * publishable without {@code --force}), then the manifest.
   */
  public void writeHeldManifest(Manifest manifest, String gate, String reason) {
    try {
      storage.write(SnapshotLayout.heldKey(manifest.id()), SnapshotStore.json().writeValueAsBytes(
          new HeldRecord(gate, reason, Instant.now().toString())));
    } catch (IOException e) {
      throw new SnapshotException("cannot write the HELD record of " + manifest.id() + ": " + e.getMessage(), e);
    }
    writeManifest(manifest);
  }

  /** Points {@code CURRENT} at a snapshot, whatever it named before. */
  public void publish(String snapshotId) {
    publish(snapshotId, store.current().orElse(null), true);
  }

  public void publish(String snapshotId, String expected, boolean force) {
    publish(snapshotId, expected, force, false);
  }

  /**
   * Verifies every byte of {@code snapshotId} (recording it in {@code VERIFIED}) and points
   * {@code CURRENT} at it, provided {@code CURRENT} still names {@code expected} (null: nothing
   * published yet). The check of {@code CURRENT}, of the manifest's presence and the
   * compare-and-set run under the root's lock, which gc takes too: a snapshot gc has begun to remove
   * cannot be published, and one published cannot be removed.
   *
   * @param force publish even if {@code CURRENT} has moved on since {@code expected} was read
   * @param overrideGate publish a snapshot whose build failed a gate ({@code HELD}); its files are
   *     still verified
   * @throws PublishConflictException when {@code CURRENT} moved and {@code force} is false
   */
  public void publish(String snapshotId, String expected, boolean force, boolean overrideGate) {
    publish(snapshotId, expected, force, overrideGate, true);
  }

  /**
   * The build's own publish: as {@link #publish(String, String, boolean, boolean)}, but the files the
   * build wrote are checked for presence and size only, because their SHA-256 in the manifest was
   * computed by the writers from the bytes they wrote; {@code VERIFIED} records {@code by: build}.
   * Reading every file back here would download a remote snapshot into the committer. A file the
   * manifest references from an earlier snapshot is hashed unless a {@code VERIFIED} record vouches
   * for it as the store reports it now ({@link SnapshotStore#verifyAndReport}): its SHA-256 was copied,
   * and its object may have been replaced since.
   *
   * @return what was checked, and how many referenced files were hashed
   */
  public VerifyReport publishBuilt(String snapshotId, String expected, boolean force) {
    return publish(snapshotId, expected, force, false, false);
  }

  private VerifyReport publish(String snapshotId, String expected, boolean force, boolean overrideGate,
      boolean hash) {
    if (!store.hasManifest(snapshotId)) {
      throw new SnapshotException("cannot publish " + snapshotId + ": it has no manifest (unfinished or removed)");
    }
    Optional<HeldRecord> held = store.held(snapshotId);
    if (held.isPresent() && !overrideGate) {
      throw new SnapshotException("snapshot " + snapshotId + " failed the " + held.get().gate() + " gate when it was"
          + " built (" + held.get().reason() + "); publish it anyway with 'kiln snapshots publish " + snapshotId
          + " --force' (its files are still verified)");
    }
    VerifyReport report = store.verifyAndReport(snapshotId, hash ? "publish" : "build", hash);
    List<String> problems = report.problems();
    if (!hash) {
      // A nightly over an unchanged bucket shows 0 here: the referenced files' records vouch for them.
      LOG.info("snapshot {}: {} files ({} bytes) checked for size; {}", snapshotId, report.files(), report.bytes(),
          report.describeReferenced());
    }
    if (!problems.isEmpty()) {
      throw new SnapshotException("snapshot " + snapshotId + " under " + store.layout().root()
          + " failed verification and will not be published: " + String.join("; ", problems));
    }
    byte[] update = (snapshotId + "\n").getBytes(StandardCharsets.UTF_8);
    String from;
    try {
      from = storage.locked(SnapshotLayout.CURRENT, () -> {
        if (!store.hasManifest(snapshotId)) {
          throw new SnapshotException("cannot publish " + snapshotId + ": it was removed (by gc) while it was verified");
        }
        Optional<String> now = store.current();
        String base = expected;
        if (!Objects.equals(now.orElse(null), base)) {
          if (!force) {
            throw conflict(snapshotId, base, now.orElse(null));
          }
          LOG.warn("--force: publishing {} over {} (this build started from {})", snapshotId, now.orElse("nothing"),
              base == null ? "nothing" : base);
          base = now.orElse(null);
        }
        byte[] expectedBytes = base == null ? null : (base + "\n").getBytes(StandardCharsets.UTF_8);
        if (!storage.compareAndSet(SnapshotLayout.CURRENT, expectedBytes, update)) {
          // CURRENT holds the expected id but not byte for byte (hand-edited): compare by id once more.
          Optional<String> again = store.current();
          if (!Objects.equals(again.orElse(null), base)) {
            throw conflict(snapshotId, base, again.orElse(null));
          }
          storage.write(SnapshotLayout.CURRENT, update);
        }
        return base;
      });
      // Stores without a conditional write can lose a race between the last read and the write:
      // read back, so that a lost race is reported rather than silently assumed won.
      String after = store.currentId();
      if (!after.equals(snapshotId)) {
        throw new PublishConflictException("publishing " + snapshotId + " lost a race: CURRENT now names "
            + after + "; the snapshot is complete and can be published with 'kiln snapshots publish "
            + snapshotId + "'");
      }
      if (held.isPresent()) {
        storage.delete(SnapshotLayout.heldKey(snapshotId)); // accepted by hand: no longer held
      }
    } catch (IOException e) {
      throw new SnapshotException("cannot publish " + snapshotId + ": " + e.getMessage(), e);
    }
    LOG.info("published {} (was {})", snapshotId, from == null ? "nothing" : from);
    return report;
  }

  /**
   * Removes a snapshot that a failed build made, unless {@code CURRENT} names it (a failure after a
   * compare-and-set that succeeded) or cannot be read, or a running build continues it: checked under
   * the root's lock, so no publish or build start slips in between. Files that other snapshots
   * reference are kept ({@link #removeData}).
   *
   * @return whether it was removed
   */
  public boolean discardUnpublished(String id) {
    try {
      return storage.locked(SnapshotLayout.CURRENT, () -> {
        Optional<String> now;
        try {
          now = store.current();
        } catch (SnapshotException e) {
          LOG.warn("kept snapshot {}: CURRENT cannot be read ({}), so it may be the published one", id, e.getMessage());
          return false;
        }
        if (now.isPresent() && now.get().equals(id)) {
          LOG.warn("kept snapshot {}: CURRENT names it, although its build reported a failure", id);
          return false;
        }
        if (store.hasManifest(id) && UnfinishedSnapshots.scan(store, System.currentTimeMillis(), Long.MAX_VALUE)
            .bases().contains(id)) {
          LOG.warn("kept snapshot {}: a running build continues it, although its own build reported a failure", id);
          return false;
        }
        writeMarker(id, StagingMarker.forThisProcess(StagingMarker.DELETING, null));
        storage.delete(SnapshotLayout.manifestKey(id));
        return true;
      }) && removeData(id);
    } catch (IOException | SnapshotException e) {
      // Its staging marker (or missing manifest) still marks it as unfinished: 'kiln snapshots gc' removes it.
      LOG.warn("could not remove unpublished snapshot {}: {}", id, e.getMessage());
      return false;
    }
  }

  /**
   * Removes a snapshot's data once its manifest is gone (so readers cannot see a partial one), except
   * files that remaining snapshots reference (then marked {@code retired}, for gc to remove once
   * nothing does). Closed, checksummed stored-vector parts are kept, marked {@code RESUMABLE}: the
   * vectors a failed build computed are reused by the next build into this root, and gc removes them
   * after its window.
   */
  boolean removeData(String id) throws IOException {
    String prefix = SnapshotLayout.snapshotKey(id);
    String parts = prefix + SnapshotLayout.EMBEDDINGS + "/";
    List<String> names = storage.list(parts);
    Set<String> keep = new HashSet<>(SnapshotRetention.referencedKeys(store));
    boolean resumable = false;
    for (String name : names) {
      if (name.endsWith(".parquet") && names.contains(name + ".sha256")) {
        keep.add(parts + name);
        keep.add(parts + name + ".sha256");
        resumable = true;
      }
    }
    SnapshotSweep.Outcome swept = SnapshotSweep.sweep(storage, id, keep);
    if (resumable) {
      writeMarker(id, StagingMarker.forThisProcess(StagingMarker.RESUMABLE, null));
      LOG.info("kept the stored-vector parts of failed snapshot {} for the next build to reuse", id);
    } else if (!swept.kept().isEmpty()) {
      writeMarker(id, StagingMarker.forThisProcess(StagingMarker.RETIRED, null));
      LOG.info("removed failed snapshot {} but kept {} file(s) that other snapshots reference (retired)", id,
          swept.kept().size());
    } else {
      storage.delete(SnapshotLayout.stagingKey(id));
      SnapshotSweep.removeEmpty(storage, id);
    }
    return true;
  }

  private static PublishConflictException conflict(String id, String expected, String now) {
    return new PublishConflictException("snapshot " + id + " was built and verified but NOT published: CURRENT names "
        + (now == null ? "nothing" : now) + ", not " + (expected == null ? "nothing" : expected)
        + " as when this build started (another build or a rollback published in between). Publish it anyway with"
        + " 'kiln snapshots publish " + id + "', or rerun the build with --force");
  }

  /**
   * Points {@code CURRENT} back at {@code target}, or, when null, at the snapshot before the current
   * one (see {@link #previousOf}). The target must verify.
   *
   * @return the id now published
   */
  public String rollback(String target) {
    String current = store.currentId();
    String to = target != null ? target : previousOf(current).orElseThrow(() -> new SnapshotException(
        "cannot roll back: no complete snapshot before " + current + " under " + store.layout().root()));
    if (to.equals(current)) {
      throw new SnapshotException("cannot roll back to " + to + ": it is already the published snapshot");
    }
    publish(to, current, false);
    return to;
  }

  /**
   * The snapshot before {@code id}: its manifest's {@code parent} when that still exists, else the
   * newest complete snapshot older than {@code id}.
   */
  public Optional<String> previousOf(String id) {
    List<String> complete = store.list();
    if (store.hasManifest(id)) {
      String parent = null;
      try {
        parent = store.manifest(id).parent();
      } catch (SnapshotException e) {
        LOG.warn("manifest of {} is unreadable ({}): its predecessor is taken to be the newest older snapshot", id,
            e.getMessage());
      }
      if (parent != null && SnapshotLayout.isSnapshotId(parent) && complete.contains(parent)) {
        return Optional.of(parent);
      }
    }
    String best = null;
    for (String c : complete) {
      if (c.compareTo(id) < 0) {
        best = c;
      }
    }
    return Optional.ofNullable(best);
  }
}
