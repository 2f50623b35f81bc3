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
 * the published one and the one before it; removes older complete snapshots and the unfinished data
 * of builds that are no longer running. Data of a build that may still be running is left alone.
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
   */
  public record Plan(List<String> kept, List<String> expired, List<String> orphans, List<String> building) {}

  public Plan plan(int keep, long staleAfterMillis) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep must be >= 0");
    }
    List<String> complete = store.list();
    Set<String> protect = protectedIds();
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
    List<String> expired = complete.stream().filter(id -> !kept.contains(id)).toList();
    List<String> orphans = new ArrayList<>();
    List<String> building = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (String id : store.allIds()) {
      if (store.hasManifest(id)) {
        continue;
      }
      Optional<StagingMarker> marker = store.stagingMarker(id);
      if (marker.isEmpty() || marker.get().abandoned(now, staleAfterMillis, modified(id))) {
        orphans.add(id);
      } else {
        building.add(id);
      }
    }
    return new Plan(complete.stream().filter(kept::contains).toList(), expired, orphans, building);
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

  /** When the staging marker object was last written, on the store's clock (-1: unknown). */
  private long modified(String id) {
    try {
      return store.storage().lastModified(SnapshotLayout.stagingKey(id));
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Carries out a plan. Each removal decides under the root's lock — the one publish holds around
   * its compare-and-set — after re-reading {@code CURRENT}: a snapshot that became the published one
   * or its predecessor is kept, an orphan that gained a manifest or a fresh heartbeat is kept, and a
   * publish cannot slip in between the check and the deletion of the manifest.
   */
  public List<String> execute(Plan plan) {
    return execute(plan, Long.MAX_VALUE);
  }

  /** As {@link #execute(Plan)}, re-judging orphans' markers against {@code staleAfterMillis}. */
  public List<String> execute(Plan plan, long staleAfterMillis) {
    List<String> removed = new ArrayList<>();
    for (String id : plan.expired()) {
      if (removeUnder(id, () -> {
        if (protectedIds().contains(id)) {
          LOG.info("gc: {} became the published snapshot or its predecessor meanwhile; kept", id);
          return false;
        }
        return true;
      })) {
        removed.add(id);
      }
    }
    for (String id : plan.orphans()) {
      if (removeUnder(id, () -> {
        if (store.hasManifest(id)) {
          return false;
        }
        Optional<StagingMarker> marker = store.stagingMarker(id);
        if (marker.isPresent() && staleAfterMillis != Long.MAX_VALUE
            && !marker.get().abandoned(System.currentTimeMillis(), staleAfterMillis, modified(id))) {
          LOG.info("gc: {} shows a fresh heartbeat now; kept", id);
          return false;
        }
        return true;
      })) {
        removed.add(id);
      }
    }
    return removed;
  }

  /** The decision of {@link #removeUnder}, made under the lock. */
  private interface Check {
    boolean stillRemovable() throws IOException;
  }

  /**
   * Removes a snapshot so that no reader ever sees part of it: under the lock, re-check, mark it as
   * being deleted, remove the manifest (the snapshot disappears for readers and can no longer be
   * published); then, outside the lock, the data and the marker.
   */
  private boolean removeUnder(String id, Check check) {
    SnapshotStorage storage = store.storage();
    try {
      boolean go = storage.locked(SnapshotLayout.CURRENT, () -> {
        if (!check.stillRemovable()) {
          return false;
        }
        PausePoint.reached("gc-remove");
        publisher.writeMarker(id, StagingMarker.forThisProcess(StagingMarker.DELETING, null));
        storage.delete(SnapshotLayout.manifestKey(id));
        return true;
      });
      if (go) {
        storage.deleteTree(SnapshotLayout.snapshotKey(id));
        LOG.info("gc: removed {}", id);
      }
      return go;
    } catch (IOException e) {
      throw new SnapshotException("cannot remove snapshot " + id + ": " + e.getMessage(), e);
    }
  }

  /** Removes a snapshot unconditionally (under the lock, as gc does). */
  void remove(String id) {
    removeUnder(id, () -> true);
  }
}
