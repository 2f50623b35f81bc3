package dev.kiln.search.http;

import java.util.List;

/**
 * A request named a snapshot this server does not hold open (a router pinned an id this shard group
 * has not opened yet, or has closed): answered 409 with the ids it does hold, which the router
 * treats as "another replica, or an older id".
 */
public final class SnapshotNotHeld extends RuntimeException {
  private final List<String> held;

  public SnapshotNotHeld(String wanted, List<String> held) {
    super("snapshot " + wanted + " is not open here; open: " + held);
    this.held = List.copyOf(held);
  }

  public List<String> held() {
    return held;
  }
}
