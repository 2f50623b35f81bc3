package dev.kiln.search.rewrite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class DenseFeedbackTest {
  private static final float[] Q = {1, 0, 0};

  @Test
  void movesTheQueryTowardsTheFeedbackMeanAndKeepsUnitLength() {
    float[] a = {0, 1, 0};
    float[] b = {0, 0, 1};
    float[] moved = new DenseFeedback(2, 1.0).expand(Q, List.of(a, b));
    // q + 1.0 * mean(a, b) = (1, 0.5, 0.5), normalised.
    double n = Math.sqrt(1.5);
    assertArrayEquals(new float[] {(float) (1 / n), (float) (0.5 / n), (float) (0.5 / n)}, moved, 1e-6f);
    // A smaller weight moves it less.
    float[] little = new DenseFeedback(2, 0.25).expand(Q, List.of(a, b));
    assertTrue(little[0] > moved[0] && little[1] < moved[1], Arrays.toString(little));
    assertEquals(1.0, little[0] * little[0] + little[1] * little[1] + little[2] * little[2], 1e-6);
  }

  @Test
  void noFeedbackOrSwitchedOffLeavesTheQueryAlone() {
    assertSame(Q, DenseFeedback.DEFAULT.expand(Q, List.of()));
    assertSame(Q, DenseFeedback.OFF.expand(Q, List.<float[]>of(new float[] {0, 1, 0})));
    assertFalse(new DenseFeedback(3, 0).enabled());
    assertFalse(new DenseFeedback(0, 0.5).enabled());
    assertTrue(DenseFeedback.DEFAULT.enabled());
    assertEquals("off", DenseFeedback.OFF.describe());
    assertEquals("3 docs x 0.25", DenseFeedback.DEFAULT.describe());
  }

  @Test
  void rejectsNonsenseNamingTheOption() {
    SettingException docs = assertThrows(SettingException.class, () -> new DenseFeedback(-1, 0.25));
    assertEquals("dense-feedback.docs must be >= 0, was -1", docs.getMessage());
    assertEquals(Setting.DENSE_FEEDBACK_DOCS, docs.setting());
    SettingException w = assertThrows(SettingException.class, () -> new DenseFeedback(3, Double.NaN));
    assertEquals("dense-feedback.weight must be a number >= 0, was NaN", w.getMessage());
    assertEquals(Setting.DENSE_FEEDBACK_WEIGHT, w.setting());
    assertThrows(ConfigException.class, () -> new DenseFeedback(3, -0.5));
    assertThrows(IllegalArgumentException.class,
        () -> DenseFeedback.DEFAULT.expand(Q, List.<float[]>of(new float[] {1, 0})));
  }
}
