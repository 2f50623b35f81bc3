package dev.kiln.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TestSeedsTest {
  @Test
  void aNameAlwaysDerivesTheSameSeedAndTwoNamesDifferentOnes() {
    assertEquals(TestSeeds.derive("a"), TestSeeds.derive("a"));
    assertNotEquals(TestSeeds.derive("a"), TestSeeds.derive("b"));
    assertNotEquals(TestSeeds.derive("test1"), TestSeeds.derive("test2"));
  }

  @Test
  void theReproduceLineNamesTheProperty() {
    assertTrue(TestSeeds.reproduceLine().contains("-Dkiln.tests.seed=0x"), TestSeeds.reproduceLine());
  }
}
