package dev.kiln.search;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.ShardFilter;
import dev.kiln.snapshot.SnapshotException;
import java.util.ArrayList;
import java.util.List;

/**
 * Which shards of a snapshot a process opens: all of them (one server over the whole snapshot) or a
 * contiguous range, a shard group behind a router ({@code kiln serve --shards 0-3}). Parsed once, from
 * the command line or configuration, and checked against each snapshot's shard count as it opens,
 * so a group configured for more shards than a snapshot has refuses it with a message, not a 500.
 * As a {@link ShardFilter} it also bounds what a group downloads of a remote root and checks at open.
 *
 * @param from the first shard number served, or -1 for every shard
 * @param to the last shard number served (inclusive), or -1 for every shard
 */
public record ShardSelection(int from, int to) implements ShardFilter {
  /** Every shard of the snapshot. */
  public static final ShardSelection ALL = new ShardSelection(-1, -1);

  public ShardSelection {
    if (!(from == -1 && to == -1) && (from < 0 || to < from)) {
      throw new IllegalArgumentException("shard range " + from + "-" + to
          + " is not a range of shard numbers: use A-B with 0 <= A <= B, or one number");
    }
  }

  /**
   * {@code A-B} (both inclusive) or {@code N}; the message of a bad value names what to write.
   *
   * @throws IllegalArgumentException for anything else
   */
  public static ShardSelection parse(String value) {
    String v = value == null ? "" : value.strip();
    String hint = "--shards takes a shard number (2) or a range of them (0-3), was '" + value + "'";
    int dash = v.indexOf('-');
    try {
      if (dash < 0) {
        int n = Integer.parseInt(v);
        return new ShardSelection(n, n);
      }
      int a = Integer.parseInt(v.substring(0, dash).strip());
      int b = Integer.parseInt(v.substring(dash + 1).strip());
      if (a < 0 || b < a) {
        throw new IllegalArgumentException(hint + ": the first number must be >= 0 and not above the second");
      }
      return new ShardSelection(a, b);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(hint, e);
    }
  }

  @Override
  public boolean all() {
    return from == -1;
  }

  @Override
  public boolean contains(int shard) {
    return all() || (shard >= from && shard <= to);
  }

  /**
   * The manifest's entries this selection serves, in the manifest's order (the order the single
   * process's doc ids follow).
   *
   * @throws SnapshotException when the range reaches past the snapshot's shards
   */
  @Override
  public List<Manifest.ShardEntry> select(Manifest manifest) {
    int count = manifest.shards().size();
    if (!all() && to >= count) {
      throw new SnapshotException("snapshot " + manifest.id() + " has " + count + " shard(s) (0-" + (count - 1)
          + "); this server is configured to serve shards " + this + ": fix --shards");
    }
    List<Manifest.ShardEntry> out = new ArrayList<>();
    for (Manifest.ShardEntry shard : manifest.shards()) {
      if (contains(shard.shard())) {
        out.add(shard);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return all() ? "all" : from == to ? Integer.toString(from) : from + "-" + to;
  }
}
