package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RouteTimingsTest {
  @Test
  void readsTheGroupsOwnDurationFromItsServerTiming() {
    assertEquals(7.25, RouteTimings.groupDuration("queue;dur=0.10, group;dur=7.25"));
    assertEquals(3.0, RouteTimings.groupDuration("group;desc=\"x\";dur=3"));
    assertEquals(-1, RouteTimings.groupDuration(null));
    assertEquals(-1, RouteTimings.groupDuration("queue;dur=1"));
    assertEquals(-1, RouteTimings.groupDuration("group;dur=soon"));
  }

  @Test
  void namesEachCallByGroupAndPhaseThenTheTotal() {
    RouteTimings t = new RouteTimings();
    t.call(1, "legs", 5_000_000, "queue;dur=0.01, group;dur=3.50");
    t.call(0, "fetch", 2_000_000, null);
    t.since("legs", System.nanoTime());
    String header = t.header();
    assertTrue(header.startsWith("g1-legs;dur=5.00, g1-legs-group;dur=3.50, g0-fetch;dur=2.00, legs;dur="), header);
    assertTrue(header.matches(".*, total;dur=[0-9]+\\.[0-9]{2}$"), header);
  }
}
