package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code snapshots/ID/STAGING}: written before anything else of a snapshot, so that data without a
 * manifest can be told apart — a build still running, or one that died ({@code kiln snapshots gc}
 * removes those). {@code state} is {@code building} while a build writes, {@code deleting} while gc
 * removes a snapshot (it is written before the manifest is deleted, so a gc killed half-way leaves
 * data that the next gc removes), {@code retired} once gc removed a snapshot but kept the files later
 * snapshots reference.
 *
 * <p>The owner is {@code host} + {@code pid} + a random {@code nonce} of the build. A running build
 * rewrites {@code heartbeat} every minute or so ({@code StagingHeartbeat}); gc collects a building
 * marker only when its heartbeat (or, for markers written before heartbeats, its start) is older
 * than the grace period — or, at once, when it was written in this very process space
 * ({@code host_id}: machine id + pid namespace) by a process that is gone. Host names alone are not
 * trusted for that shortcut: two hosts that cannot resolve their names both call themselves
 * {@code localhost}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record StagingMarker(
    @JsonProperty("state") String state,
    @JsonProperty("host") String host,
    @JsonProperty("pid") long pid,
    @JsonProperty("started") String started,
    @JsonProperty("base") String base,
    @JsonProperty("host_id") String hostId,
    @JsonProperty("nonce") String nonce,
    @JsonProperty("heartbeat") String heartbeat) {

  public static final String BUILDING = "building";
  public static final String DELETING = "deleting";
  /**
   * A failed build's snapshot reduced to its closed, checksummed stored-vector parts, kept for the next
   * build to reuse (resume); gc removes it once it is older than its staleness window.
   */
  public static final String RESUMABLE = "resumable";
  /**
   * A snapshot gc removed (its manifest is gone) whose directory still holds files that later snapshots
   * reference (manifest format 2): only those files are left, and a later gc deletes them once no
   * remaining manifest lists them. No process owns it.
   */
  public static final String RETIRED = "retired";
  /** System property that overrides this process space's identity (containers sharing a machine id). */
  public static final String HOST_ID_PROPERTY = "kiln.host-id";

  /** A marker without owner identity or heartbeat (as written before they existed). */
  public StagingMarker(String state, String host, long pid, String started, String base) {
    this(state, host, pid, started, base, null, null, null);
  }

  /** A marker for this process, with a fresh build nonce and heartbeat. */
  public static StagingMarker forThisProcess(String state, String base) {
    String now = Instant.now().toString();
    byte[] nonce = new byte[8];
    ThreadLocalRandom.current().nextBytes(nonce);
    return new StagingMarker(state, hostName(), ProcessHandle.current().pid(), now, base, thisHostId(),
        HexFormat.of().formatHex(nonce), now);
  }

  /**
   * This build's marker as owned by this process from {@code now} on: its host, pid and process space
   * instead of the writer's, the same build nonce, start and base. A job takes over the marker its client
   * wrote, so that gc judges the build by the process that runs it (the client of a detached submission
   * exits at once).
   */
  public StagingMarker takenOverHere(Instant now) {
    return new StagingMarker(state, hostName(), ProcessHandle.current().pid(), started, base, thisHostId(), nonce,
        now.toString());
  }

  /** This marker with its heartbeat at {@code now}. */
  public StagingMarker beat(Instant now) {
    return new StagingMarker(state, host, pid, started, base, hostId, nonce, now.toString());
  }

  /** Who wrote it: host, pid and build nonce. */
  @JsonIgnore
  public String owner() {
    return host + ":" + pid + (nonce == null ? "" : ":" + nonce);
  }

  /** Whether this marker was written by the same build as {@code other} (same owner and nonce). */
  public boolean sameBuild(StagingMarker other) {
    return other != null && nonce != null && nonce.equals(other.nonce) && pid == other.pid
        && Objects.equals(host, other.host);
  }

  public boolean abandoned(long nowMillis, long staleAfterMillis) {
    return abandoned(nowMillis, staleAfterMillis, -1);
  }

  /**
   * Whether the writer is known to be gone: a deletion or a retired snapshot; a build in this process space whose process
   * no longer runs; or a marker whose last sign of life (heartbeat, start, or the object's own
   * modification time {@code modifiedMillis} on the store's clock, whichever is latest) is older than
   * {@code staleAfterMillis}.
   */
  public boolean abandoned(long nowMillis, long staleAfterMillis, long modifiedMillis) {
    if (DELETING.equals(state) || RETIRED.equals(state)) {
      return true;
    }
    if (RESUMABLE.equals(state)) {
      // No process owns it any more: only its age decides.
      long since = Math.max(modifiedMillis, Math.max(millis(started), millis(heartbeat)));
      return since < 0 || nowMillis - since > staleAfterMillis;
    }
    String here = thisHostId();
    if (hostId != null && hostId.equals(here) && ProcessHandle.of(pid).map(ph -> !ph.isAlive()).orElse(true)) {
      return true;
    }
    long last = Math.max(modifiedMillis, Math.max(millis(started), millis(heartbeat)));
    return last < 0 || nowMillis - last > staleAfterMillis;
  }

  private static long millis(String instant) {
    if (instant == null) {
      return -1;
    }
    try {
      return Instant.parse(instant).toEpochMilli();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }

  /**
   * The space in which a pid names one process: the machine id and the pid namespace, or null when
   * neither can be read (then no marker is ever judged by its pid).
   */
  public static String thisHostId() {
    String override = System.getProperty(HOST_ID_PROPERTY);
    if (override != null && !override.isBlank()) {
      return override;
    }
    String machine = firstLine(Path.of("/etc/machine-id"));
    if (machine == null) {
      machine = firstLine(Path.of("/var/lib/dbus/machine-id"));
    }
    String ns = null;
    try {
      ns = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      // not Linux, or /proc is hidden: the machine id alone must do
    }
    if (machine == null) {
      return null;
    }
    return ns == null ? machine : machine + "/" + ns;
  }

  private static String firstLine(Path p) {
    try {
      if (Files.isRegularFile(p) && Files.size(p) < 1024) {
        String s = Files.readString(p).trim();
        return s.isEmpty() ? null : s;
      }
    } catch (IOException | SecurityException e) {
      // unreadable: unknown
    }
    return null;
  }
}
