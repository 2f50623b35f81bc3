package dev.kiln.publish;

import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
 *   <li>{@link #publish}: verify every file against the manifest, then compare-and-set {@code CURRENT}
 *       from the id the build started from to the new id, then read it back.
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

  /** Marks a new snapshot as being built from {@code base} (the id CURRENT named, or null). */
  public void begin(String id, String base) {
    writeMarker(id, StagingMarker.forThisProcess(StagingMarker.BUILDING, base));
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

  /** Points {@code CURRENT} at a snapshot, whatever it named before. */
  public void publish(String snapshotId) {
    publish(snapshotId, store.current().orElse(null), true);
  }

  /**
   * Verifies {@code snapshotId} and points {@code CURRENT} at it, provided {@code CURRENT} still
   * names {@code expected} (null: nothing published yet).
   *
   * @param force publish even if {@code CURRENT} has moved on since {@code expected} was read
   * @throws PublishConflictException when {@code CURRENT} moved and {@code force} is false
   */
  public void publish(String snapshotId, String expected, boolean force) {
    if (!store.hasManifest(snapshotId)) {
      throw new SnapshotException("cannot publish " + snapshotId + ": it has no manifest (unfinished or removed)");
    }
    store.open(snapshotId);
    byte[] update = (snapshotId + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      Optional<String> now = store.current();
      if (!Objects.equals(now.orElse(null), expected)) {
        if (!force) {
          throw conflict(snapshotId, expected, now.orElse(null));
        }
        LOG.warn("--force: publishing {} over {} (this build started from {})", snapshotId, now.orElse("nothing"),
            expected == null ? "nothing" : expected);
        expected = now.orElse(null);
      }
      byte[] expectedBytes = expected == null ? null : (expected + "\n").getBytes(StandardCharsets.UTF_8);
      if (!storage.compareAndSet(SnapshotLayout.CURRENT, expectedBytes, update)) {
        // CURRENT holds the expected id but not byte for byte (hand-edited): compare by id once more.
        Optional<String> again = store.current();
        if (!Objects.equals(again.orElse(null), expected)) {
          throw conflict(snapshotId, expected, again.orElse(null));
        }
        storage.write(SnapshotLayout.CURRENT, update);
      }
      // Stores without a conditional write can lose a race between the last read and the write:
      // read back, so that a lost race is reported rather than silently assumed won.
      String after = store.currentId();
      if (!after.equals(snapshotId)) {
        throw new PublishConflictException("publishing " + snapshotId + " lost a race: CURRENT now names "
            + after + "; the snapshot is complete and can be published with 'kiln snapshots publish "
            + snapshotId + "'");
      }
    } catch (IOException e) {
      throw new SnapshotException("cannot publish " + snapshotId + ": " + e.getMessage(), e);
    }
    LOG.info("published {} (was {})", snapshotId, expected == null ? "nothing" : expected);
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
      String parent = store.manifest(id).parent();
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
