package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.InetAddress;
import java.time.Instant;

/**
 * {@code snapshots/ID/STAGING}: written before anything else of a snapshot, so that data without a
 * manifest can be told apart — a build still running, or one that died ({@code kiln snapshots gc}
 * removes those). {@code state} is {@code building} while a build writes, {@code deleting} while gc
 * removes a snapshot (it is written before the manifest is deleted, so a gc killed half-way leaves
 * data that the next gc removes).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record StagingMarker(
    @JsonProperty("state") String state,
    @JsonProperty("host") String host,
    @JsonProperty("pid") long pid,
    @JsonProperty("started") String started,
    @JsonProperty("base") String base) {

  public static final String BUILDING = "building";
  public static final String DELETING = "deleting";

  /** A marker for this process. */
  public static StagingMarker forThisProcess(String state, String base) {
    return new StagingMarker(state, hostName(), ProcessHandle.current().pid(), Instant.now().toString(), base);
  }

  /**
   * Whether the writer is known to be gone: a deletion, a build on this host whose process no longer
   * runs, or a marker older than {@code staleAfterMillis} (a build on another host).
   */
  public boolean abandoned(long nowMillis, long staleAfterMillis) {
    if (DELETING.equals(state)) {
      return true;
    }
    if (hostName().equals(host) && ProcessHandle.of(pid).map(ph -> !ph.isAlive()).orElse(true)) {
      return true;
    }
    try {
      return nowMillis - Instant.parse(started).toEpochMilli() > staleAfterMillis;
    } catch (RuntimeException e) {
      return true;
    }
  }

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "localhost";
    }
  }
}
