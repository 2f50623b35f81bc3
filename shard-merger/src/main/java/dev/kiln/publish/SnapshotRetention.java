package dev.kiln.publish;

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
      if (marker.isEmpty() || marker.get().abandoned(now, staleAfterMillis)) {
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

  /** Carries out a plan; re-checks the protected set before each removal, since a build may publish meanwhile. */
  public List<String> execute(Plan plan) {
    List<String> removed = new ArrayList<>();
    for (String id : plan.expired()) {
      if (protectedIds().contains(id)) {
        LOG.info("gc: {} became the published snapshot or its predecessor meanwhile; kept", id);
        continue;
      }
      remove(id);
      removed.add(id);
    }
    for (String id : plan.orphans()) {
      if (store.hasManifest(id)) {
        continue;
      }
      remove(id);
      removed.add(id);
    }
    return removed;
  }

  /**
   * Removes a snapshot so that no reader ever sees part of it: first mark it as being deleted, then
   * remove the manifest (the snapshot disappears for readers), then the data, then the marker.
   */
  void remove(String id) {
    SnapshotStorage storage = store.storage();
    try {
      publisher.writeMarker(id, StagingMarker.forThisProcess(StagingMarker.DELETING, null));
      storage.delete(SnapshotLayout.manifestKey(id));
      storage.deleteTree(SnapshotLayout.snapshotKey(id));
      LOG.info("gc: removed {}", id);
    } catch (IOException e) {
      throw new SnapshotException("cannot remove snapshot " + id + ": " + e.getMessage(), e);
    }
  }
}
