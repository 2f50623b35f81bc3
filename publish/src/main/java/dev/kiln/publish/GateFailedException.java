package dev.kiln.publish;

import dev.kiln.model.ShardResult;
import dev.kiln.snapshot.SnapshotException;
import java.util.List;

/**
 * A complete snapshot failed a quality gate (recall probe below the floor, chunk counts that do not
 * add up): it must not be published as is, but its shards and vectors are sound and worth keeping —
 * the build holds it ({@code HELD}) rather than discarding it.
 */
public final class GateFailedException extends SnapshotException {
  private final String gate;
  private final transient List<ShardResult> shards;

  public GateFailedException(String gate, String message, List<ShardResult> shards) {
    super(message);
    this.gate = gate;
    this.shards = shards;
  }

  /** {@code recall_floor} or {@code verifier} ({@link dev.kiln.snapshot.HeldRecord}). */
  public String gate() {
    return gate;
  }

  /** The shards that were verified structurally (every shard present once, each opens). */
  public List<ShardResult> shards() {
    return shards;
  }
}
