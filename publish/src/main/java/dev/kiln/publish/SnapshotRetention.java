package dev.kiln.publish;

import dev.kiln.internal.PausePoint;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention ({@code kiln snapshots gc}): keeps the newest {@code keep} complete snapshots and, always,
 * the published one, the one before it and every snapshot a running build continues; removes older
 * complete snapshots and the unfinished data of builds that are no longer running. Data of a build
 * that may still be running is left alone.
 *
 * <p>A snapshot's files may be referenced by later snapshots (manifest format 2). Removing one therefore
 * takes two steps: under the root's lock its manifest is deleted (readers stop seeing it); then,
 * outside the lock, each object under its directory that no remaining manifest references is deleted
 * ({@link SnapshotSweep}, against {@link RootManifests}). A directory left holding referenced files is
 * marked {@code retired}; a later gc deletes those files once nothing references them. The argument
 * that this never takes a file from a retained snapshot, with builds and other gcs running and gc
 * killed at any point, is in docs/FORMATS.md ("Retention").
 */
public final class SnapshotRetention {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotRetention.class);

  private final SnapshotStore store;
  private final SnapshotPublisher publisher;

  public SnapshotRetention(SnapshotStore store) {
    this.store = store;
    this.publisher = new SnapshotPublisher(store);
  }

  /**
   * What gc would do.
   *
   * @param kept complete snapshots that stay
   * @param expired complete snapshots to remove
   * @param orphans unfinished data of builds (or removals) that died
   * @param building unfinished data of builds that may still be running: left alone
   * @param retired directories of removed snapshots that still held files later snapshots reference:
   *     swept again, and removed once nothing references them
   * @param continued kept snapshots that a running build continues (its {@code STAGING} marker's base)
   */
  public record Plan(List<String> kept, List<String> expired, List<String> orphans, List<String> building,
      List<String> retired, List<String> continued) {}

  /**
   * What gc did.
   *
   * @param removed snapshots whose manifest gc removed, and orphans it took over
   * @param retired of those (and of the directories retired before), the ones that still hold files
   *     other snapshots reference
   * @param deferred directories whose data was not swept this time (see {@code problem})
   * @param problem why: the manifests that decide what is referenced could not all be read
   */
  public record Outcome(List<String> removed, List<String> retired, List<String> deferred, String problem) {}

  public Plan plan(int keep, long staleAfterMillis) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep must be >= 0");
    }
    UnfinishedSnapshots now = UnfinishedSnapshots.scan(store, System.currentTimeMillis(), staleAfterMillis);
    List<String> complete = now.complete();
    Set<String> protect = protectedIds();
    protect.addAll(now.bases());
    Set<String> kept = new LinkedHashSet<>();
    for (int i = complete.size() - 1, n = 0; i >= 0; i--) {
      String id = complete.get(i);
      if (n < keep) {
        kept.add(id);
        n++;
      } else if (protect.contains(id)) {
        kept.add(id);
      }
    }
    return new Plan(complete.stream().filter(kept::contains).toList(),
        complete.stream().filter(id -> !kept.contains(id)).toList(), now.orphans(), now.building(), now.retired(),
        complete.stream().filter(now.bases()::contains).toList());
  }

  /** The published snapshot and the one before it: never removed. */
  private Set<String> protectedIds() {
    Set<String> p = new LinkedHashSet<>();
    store.current().ifPresent(cur -> {
      p.add(cur);
      publisher.previousOf(cur).ifPresent(p::add);
    });
    return p;
  }

  /**
   * Carries out a plan. The removals are decided under the root's lock — the one publish holds around
   * its compare-and-set and a build's start holds to check its base — after re-reading {@code CURRENT}
   * and every build marker: a snapshot that became the published one, its predecessor or the base of a
   * running build is kept, an orphan that gained a manifest or a fresh heartbeat is kept, and neither a
   * publish nor a build's start can slip in between the check and the deletion of the manifest.
   *
   * @return the snapshots removed
   */
  public List<String> execute(Plan plan) {
    return execute(plan, Long.MAX_VALUE);
  }

  /** As {@link #execute(Plan)}, judging markers against {@code staleAfterMillis}. */
  public List<String> execute(Plan plan, long staleAfterMillis) {
    return run(plan, staleAfterMillis).removed();
  }

  /**
   * As {@link #execute(Plan, long)}, reporting which directories were retired or left for later.
   * {@code staleAfterMillis} {@link Long#MAX_VALUE}: every marker not known to be dead counts as a
   * running build's.
   */
  public Outcome run(Plan plan, long staleAfterMillis) {
    SnapshotStorage storage = store.storage();
    List<String> removed = new ArrayList<>();
    List<String> sweep = new ArrayList<>();
    try {
      storage.locked(SnapshotLayout.CURRENT, () -> {
        decide(plan, staleAfterMillis, removed, sweep);
        return null;
      });
    } catch (IOException e) {
      throw new SnapshotException("gc: cannot remove snapshots under " + store.layout().root() + ": " + e.getMessage(),
          e);
    }
    PausePoint.reached("gc-data");
    if (sweep.isEmpty()) {
      return new Outcome(removed, List.of(), List.of(), null);
    }
    Set<String> keep;
    try {
      keep = referencedKeys(store);
    } catch (SnapshotException e) {
      LOG.warn("gc: the data of {} is left for a later gc: {}", sweep, e.getMessage());
      return new Outcome(removed, List.of(), sweep, e.getMessage());
    }
    List<String> retired = new ArrayList<>();
    for (String id : sweep) {
      try {
        if (sweepOne(id, keep)) {
          retired.add(id);
        }
      } catch (IOException e) {
        throw new SnapshotException("cannot remove snapshot " + id + ": " + e.getMessage(), e);
      }
    }
    return new Outcome(removed, retired, List.of(), null);
  }

  /** Under the root's lock: re-checks each removal and deletes the manifests of those that go. */
  private void decide(Plan plan, long staleAfterMillis, List<String> removed, List<String> sweep) throws IOException {
    SnapshotStorage storage = store.storage();
    long now = System.currentTimeMillis();
    Set<String> protect = protectedIds();
    // Read under the lock: a build whose marker is not seen here checks its base under the lock after
    // this hold, and so finds the base's manifest gone and stops before writing anything.
    Set<String> bases = UnfinishedSnapshots.scan(store, now, staleAfterMillis).bases();
    for (String id : plan.expired()) {
      if (protect.contains(id)) {
        LOG.info("gc: {} became the published snapshot or its predecessor meanwhile; kept", id);
      } else if (bases.contains(id)) {
        LOG.info("gc: {} is the base of a running build; kept", id);
      } else if (store.hasManifest(id)) {
        PausePoint.reached("gc-remove");
        publisher.writeMarker(id, StagingMarker.forThisProcess(StagingMarker.DELETING, null));
        storage.delete(SnapshotLayout.manifestKey(id));
        removed.add(id);
        sweep.add(id);
      }
    }
    for (String id : plan.orphans()) {
      if (store.hasManifest(id)) {
        continue;
      }
      Optional<StagingMarker> marker = UnfinishedSnapshots.marker(store, id);
      if (marker.isPresent() && staleAfterMillis != Long.MAX_VALUE
          && !marker.get().abandoned(now, staleAfterMillis, UnfinishedSnapshots.modified(store, id))) {
        LOG.info("gc: {} shows a fresh heartbeat now; kept", id);
        continue;
      }
      PausePoint.reached("gc-remove");
      String state = marker.map(StagingMarker::state).orElse(null);
      if (!StagingMarker.DELETING.equals(state) && !StagingMarker.RETIRED.equals(state)
          && !takeOverAbandoned(id, now, staleAfterMillis)) {
        LOG.info("gc: {} shows a fresh heartbeat now; kept", id);
        continue;
      }
      removed.add(id);
      sweep.add(id);
    }
    for (String id : plan.retired()) {
      if (!store.hasManifest(id)) {
        sweep.add(id);
      }
    }
  }

  /**
   * Marks the abandoned build {@code id} {@code deleting}: were it alive after all, its heartbeat stops at
   * this marker. Written only over the marker as read here, judged abandoned again from those bytes, so a
   * beat that landed since this gc judged it wins and the build is kept (false).
   */
  private boolean takeOverAbandoned(String id, long now, long staleAfterMillis) throws IOException {
    SnapshotStorage storage = store.storage();
    String key = SnapshotLayout.stagingKey(id);
    Optional<byte[]> seen = storage.read(key, SnapshotLayout.MAX_RECORD_BYTES);
    StagingMarker there = null;
    if (seen.isPresent()) {
      try {
        there = SnapshotStore.json().readValue(seen.get(), StagingMarker.class);
      } catch (IOException e) {
        there = null; // bytes no Kiln wrote whole: no marker, as UnfinishedSnapshots reads them
      }
    }
    if (there != null && staleAfterMillis != Long.MAX_VALUE
        && !there.abandoned(now, staleAfterMillis, UnfinishedSnapshots.modified(store, id))) {
      return false;
    }
    byte[] deleting = SnapshotStore.json().writeValueAsBytes(StagingMarker.forThisProcess(StagingMarker.DELETING, null));
    return storage.compareAndSet(key, seen.orElse(null), deleting);
  }

  /**
   * Deletes what nothing references under a directory without a manifest, then its marker and the
   * directory, or marks it {@code retired} when referenced files remain.
   *
   * @return whether it was retired
   */
  private boolean sweepOne(String id, Set<String> keep) throws IOException {
    SnapshotStorage storage = store.storage();
    if (storage.exists(SnapshotLayout.manifestKey(id))) {
      LOG.warn("gc: {} has a manifest again (a build presumed dead committed it); its data is kept", id);
      return false;
    }
    SnapshotSweep.Outcome o = SnapshotSweep.sweep(storage, id, keep);
    if (o.kept().isEmpty()) {
      storage.delete(SnapshotLayout.stagingKey(id));
      SnapshotSweep.removeEmpty(storage, id);
      LOG.info("gc: removed {}", id);
      return false;
    }
    PausePoint.reached("gc-retire");
    publisher.writeMarker(id, StagingMarker.forThisProcess(StagingMarker.RETIRED, null));
    LOG.info("gc: removed {} but kept {} file(s) that later snapshots reference (retired)", id, o.kept().size());
    return true;
  }

  /**
   * The keys no sweep may delete: every file a complete snapshot lists, where the storage holds it
   * ({@link RootManifests#storedKeys}). A local root needs no reading: each snapshot holds links of the
   * files it references, so none of them lies under another snapshot's directory.
   *
   * @throws SnapshotException when some complete snapshot's manifest cannot be read (what it references
   *     is then unknown) or the root keeps changing
   */
  static Set<String> referencedKeys(SnapshotStore store) {
    if (store.storage().linksSharedFiles()) {
      return Set.of();
    }
    RootManifests manifests = RootManifests.read(store);
    if (!manifests.unreadable().isEmpty()) {
      throw new SnapshotException("the manifests of " + manifests.unreadable().keySet() + " cannot be read ("
          + String.join("; ", manifests.unreadable().values()) + "), so what they reference is unknown; verify or"
          + " remove them first");
    }
    return manifests.storedKeys(store.storage());
  }
}
