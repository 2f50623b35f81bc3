package dev.kiln.snapshot;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code snapshots/ID/HELD}: the build failed a gate ({@code recall_floor}, {@code verifier}) and kept
 * its complete, checksummed snapshot instead of discarding it, so that its vectors can be reused
 * ({@code --reuse-from ID}) or the snapshot published anyway ({@code kiln snapshots publish ID
 * --force}, which skips the gate but still verifies every file). Written before the manifest, so a
 * held snapshot is never publishable without {@code --force}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HeldRecord(
    @JsonProperty("gate") String gate,
    @JsonProperty("reason") String reason,
    @JsonProperty("held") String held) {

  public static final String RECALL_FLOOR = "recall_floor";
  public static final String VERIFIER = "verifier";
}
