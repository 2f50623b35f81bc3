package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class StagingMarkerTest {
  private static long deadPid() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    return p.pid();
  }

  @Test
  void twoHostsThatBothCallThemselvesLocalhostAreNotConfused() throws Exception {
    long now = System.currentTimeMillis();
    String started = Instant.ofEpochMilli(now - 3_600_000).toString();
    // A live build on another machine whose name did not resolve either: same "localhost", a pid
    // that means nothing here, a fresh heartbeat.
    StagingMarker other = new StagingMarker(StagingMarker.BUILDING, "localhost", deadPid(), started, null,
        "another-machine/pid:[1]", "aa", Instant.ofEpochMilli(now - 1_000).toString());
    assertFalse(other.abandoned(now, 60_000), "fresh heartbeat on another host: alive");
    StagingMarker mine = new StagingMarker(StagingMarker.BUILDING, "localhost", deadPid(), started, null,
        StagingMarker.thisHostId(), "bb", Instant.ofEpochMilli(now - 1_000).toString());
    assertTrue(StagingMarker.thisHostId() == null || mine.abandoned(now, 60_000),
        "same process space and the process is gone: dead at once");
  }

  @Test
  void theHeartbeatNotTheStartDecidesStaleness() {
    long now = System.currentTimeMillis();
    StagingMarker m = new StagingMarker(StagingMarker.BUILDING, "h", 1, Instant.ofEpochMilli(now - 86_400_000L).toString(),
        null, "remote", "cc", Instant.ofEpochMilli(now - 86_400_000L).toString());
    assertTrue(m.abandoned(now, 600_000));
    assertFalse(m.beat(Instant.ofEpochMilli(now - 5_000)).abandoned(now, 600_000), "a recent beat keeps a day-old build");
    assertFalse(m.abandoned(now, 600_000, now - 5_000), "so does a recent write of the marker on the store's clock");
  }

  @Test
  void eachBuildHasItsOwnNonce() {
    StagingMarker a = StagingMarker.forThisProcess(StagingMarker.BUILDING, null);
    StagingMarker b = StagingMarker.forThisProcess(StagingMarker.BUILDING, null);
    assertNotEquals(a.nonce(), b.nonce());
    assertFalse(a.sameBuild(b));
    assertTrue(a.sameBuild(a.beat(Instant.now())));
    assertTrue(a.owner().contains(":" + ProcessHandle.current().pid() + ":" + a.nonce()), a.owner());
  }

  @Test
  void aRetiredDirectoryBelongsToNoProcessWhoeverWroteItsMarker() {
    long now = System.currentTimeMillis();
    // Written by a gc on another host a moment ago: neither its pid nor its age may keep it "building".
    StagingMarker retired = new StagingMarker(StagingMarker.RETIRED, "h", 1, Instant.ofEpochMilli(now).toString(), null,
        "remote", "dd", Instant.ofEpochMilli(now).toString());
    assertTrue(retired.abandoned(now, Long.MAX_VALUE));
  }
}
