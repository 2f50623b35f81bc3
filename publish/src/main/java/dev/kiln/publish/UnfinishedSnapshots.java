package dev.kiln.publish;

import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The directories under {@code snapshots/} without a manifest, judged by their {@code STAGING} marker at
 * one moment: builds that may still run (left alone, and the snapshots they continue kept), data of
 * builds or removals that died (orphans), and removed snapshots whose directories keep only files later
 * snapshots reference (retired).
 *
 * @param complete ids with a manifest, oldest first
 * @param orphans unfinished data of builds (or removals) that died
 * @param building unfinished data of builds that may still be running
 * @param retired directories of removed snapshots that still hold referenced files
 * @param bases the snapshots those running builds continue (their markers' {@code base})
 */
record UnfinishedSnapshots(List<String> complete, List<String> orphans, List<String> building, List<String> retired,
    Set<String> bases) {
  /** Reads of a marker while a temporary file beside it shows a write in flight (20 ms apart: 1 s). */
  private static final int MARKER_RETRIES = 50;

  /**
   * Reads every directory's state. A marker counts as a running build's unless it is
   * {@link StagingMarker#abandoned} against {@code staleAfterMillis} ({@link Long#MAX_VALUE}: only a
   * build known to be gone, never one merely quiet).
   */
  static UnfinishedSnapshots scan(SnapshotStore store, long nowMillis, long staleAfterMillis) {
    List<String> complete = new ArrayList<>();
    List<String> orphans = new ArrayList<>();
    List<String> building = new ArrayList<>();
    List<String> retired = new ArrayList<>();
    Set<String> bases = new LinkedHashSet<>();
    for (String id : store.allIds()) {
      if (store.hasManifest(id)) {
        complete.add(id);
        continue;
      }
      Optional<StagingMarker> marker = marker(store, id);
      if (marker.isPresent() && StagingMarker.RETIRED.equals(marker.get().state())) {
        retired.add(id);
      } else if (marker.isEmpty() || marker.get().abandoned(nowMillis, staleAfterMillis, modified(store, id))) {
        orphans.add(id);
      } else {
        building.add(id);
        if (marker.get().base() != null && SnapshotLayout.isSnapshotId(marker.get().base())) {
          bases.add(marker.get().base());
        }
      }
    }
    return new UnfinishedSnapshots(complete, orphans, building, retired, bases);
  }

  /**
   * The marker of {@code id}, read again while a write of it is in flight. HDFS replaces an object by
   * deleting it and renaming a temporary file onto its name, and a local root's first marker is renamed
   * into a directory that already exists: for a moment a running build's directory shows no marker but a
   * temporary file beside where it goes. Read then, the build would pass for dead and its base for free.
   * For the same reason a marker that cannot be read (an I/O error, not bytes that do not parse) is
   * read again, and then stops gc rather than count as missing. Bytes that do not parse are a marker
   * no Kiln wrote whole: no marker, as before.
   *
   * @throws SnapshotException when the marker cannot be read for a second
   */
  static Optional<StagingMarker> marker(SnapshotStore store, String id) {
    String key = SnapshotLayout.stagingKey(id);
    for (int attempt = 0; ; attempt++) {
      Optional<byte[]> bytes;
      try {
        bytes = store.storage().read(key, SnapshotLayout.MAX_RECORD_BYTES);
      } catch (IOException e) {
        if (attempt == MARKER_RETRIES) {
          throw new SnapshotException("cannot read " + key + " (" + e.getMessage() + "): gc cannot tell whether"
              + " a build is running there, so it stops; remove the object if no build is", e);
        }
        pause();
        continue;
      }
      if (bytes.isPresent()) {
        try {
          return Optional.ofNullable(SnapshotStore.json().readValue(bytes.get(), StagingMarker.class));
        } catch (IOException e) {
          return Optional.empty();
        }
      }
      if (attempt == MARKER_RETRIES || !markerInFlight(store, id)) {
        return Optional.empty();
      }
      pause();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SnapshotException("interrupted while reading a staging marker", e);
    }
  }

  private static boolean markerInFlight(SnapshotStore store, String id) {
    try {
      return store.storage().list(SnapshotLayout.snapshotKey(id)).stream().anyMatch(n ->
          n.startsWith(SnapshotLayout.STAGING + ".tmp-") || n.startsWith("." + SnapshotLayout.STAGING + ".tmp-"));
    } catch (IOException e) {
      return false;
    }
  }

  /** When the staging marker object was last written, on the store's clock (-1: unknown). */
  static long modified(SnapshotStore store, String id) {
    try {
      return store.storage().lastModified(SnapshotLayout.stagingKey(id));
    } catch (IOException e) {
      return -1;
    }
  }
}
