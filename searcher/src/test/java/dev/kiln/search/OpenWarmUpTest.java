package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OpenWarmUpTest {
  @Test
  void everyStepOfTheWarmUpRuns() {
    assertTrue(OpenWarmUp.run());
  }

  @Test
  void theWarmUpThreadIsADaemonAndEnds() throws InterruptedException {
    Thread t = OpenWarmUp.start();
    assertTrue(t.isDaemon(), "a warm-up must never keep a finished command's JVM alive");
    t.join(30_000);
    assertFalse(t.isAlive());
  }
}
