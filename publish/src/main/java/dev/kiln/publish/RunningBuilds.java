package dev.kiln.publish;

import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The builds of a root running now, as their {@code STAGING} markers show them: a {@code building}
 * marker (of a snapshot with or without its manifest yet) whose last sign of life (heartbeat, start, the object's own
 * modification time) is within {@code fresh}, and whose writer is not known to be gone (a process of
 * this process space that no longer runs). A build keeps its heartbeat every {@code StagingHeartbeat}
 * interval wherever it runs (client, then the job's JobManager), so a build that died on another host
 * stops counting once a few intervals passed without a beat.
 *
 * <p>Used to refuse a second build of a root while one runs: two builds from the same {@code CURRENT}
 * would both embed and write the whole corpus and then race to publish, the loser's work thrown away
 * by the compare-and-set.
 */
public final class RunningBuilds {
  /** Nonces of the builds this process runs now ({@link #track}). */
  private static final Set<String> HERE = ConcurrentHashMap.newKeySet();

  private RunningBuilds() {}

  /**
   * Marks the build of {@code marker} as running in this process until {@link #untrack}. A marker this
   * process wrote (its process space and pid) whose build is not tracked is over — failed without
   * clearing its marker, say — however fresh its heartbeat: a process that runs builds one after
   * another (tests, a service) is not refused by its own past.
   */
  public static void track(StagingMarker marker) {
    if (marker.nonce() != null) {
      HERE.add(marker.nonce());
    }
  }

  public static void untrack(StagingMarker marker) {
    if (marker != null && marker.nonce() != null) {
      HERE.remove(marker.nonce());
    }
  }

  private static boolean overInThisProcess(StagingMarker m) {
    String here = StagingMarker.thisHostId();
    return here != null && here.equals(m.hostId()) && m.pid() == ProcessHandle.current().pid()
        && (m.nonce() == null || !HERE.contains(m.nonce()));
  }

  /** One running build: its snapshot and its marker. */
  public record Running(String id, StagingMarker marker) {
    /** For a person: {@code 20261207T120000Z-0a1b2c (host:pid, started …, last heartbeat 12 s ago)}. */
    public String describe(Instant now) {
      String beat = marker.heartbeat() == null ? "no heartbeat" : "last heartbeat "
          + Math.max(0, Duration.between(Instant.parse(marker.heartbeat()), now).toSeconds()) + " s ago";
      return id + " (" + marker.host() + ":" + marker.pid() + ", started " + marker.started() + ", " + beat + ")";
    }
  }

  /** The running builds of {@code store}'s root other than {@code self} (null: all). */
  public static List<Running> scan(SnapshotStore store, Instant now, Duration fresh, String self) {
    List<Running> out = new ArrayList<>();
    for (String id : store.allIds()) {
      if (id.equals(self)) {
        continue;
      }
      // A build with its manifest written is still running until it has published and dropped its
      // marker (the compare-and-set comes after the manifest): its marker is read too, once.
      Optional<StagingMarker> marker = store.hasManifest(id) ? store.stagingMarker(id)
          : UnfinishedSnapshots.marker(store, id);
      if (marker.isPresent() && StagingMarker.BUILDING.equals(marker.get().state()) && !overInThisProcess(marker.get())
          && !marker.get().abandoned(now.toEpochMilli(), fresh.toMillis(), UnfinishedSnapshots.modified(store, id))) {
        out.add(new Running(id, marker.get()));
      }
    }
    return out;
  }
}
