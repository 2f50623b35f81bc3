package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.testing.TestSeeds;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(TestSeeds.class)
class TokenWindowsTest {
  @Test
  void workedExample() {
    // 10 tokens, windows of 4 overlapping by 1: step 3 → [0,4) [3,7) [6,10)
    List<int[]> w = TokenWindows.windows(10, 4, 1);
    assertEquals(3, w.size());
    assertArrayEquals(new int[] {0, 4}, w.get(0));
    assertArrayEquals(new int[] {3, 7}, w.get(1));
    assertArrayEquals(new int[] {6, 10}, w.get(2));
  }

  @Test
  void shortTextIsOneWindowAndEmptyTextNone() {
    assertEquals(1, TokenWindows.windows(3, 8, 2).size());
    assertArrayEquals(new int[] {0, 3}, TokenWindows.windows(3, 8, 2).get(0));
    assertTrue(TokenWindows.windows(0, 8, 2).isEmpty());
  }

  @Test
  void rejectsOverlapNotSmallerThanSize() {
    assertThrows(IllegalArgumentException.class, () -> TokenWindows.windows(10, 4, 4));
  }

  /** Seeded random sizes: the three window invariants hold for every combination. */
  @Test
  void invariantsHoldForRandomSizes(Random random) {
    for (int trial = 0; trial < 2000; trial++) {
      int tokens = random.nextInt(500);
      int size = 1 + random.nextInt(64);
      int overlap = random.nextInt(size);
      List<int[]> windows = TokenWindows.windows(tokens, size, overlap);
      boolean[] covered = new boolean[tokens];
      for (int i = 0; i < windows.size(); i++) {
        int[] w = windows.get(i);
        assertTrue(w[1] - w[0] <= size && w[1] > w[0], "window too large or empty");
        for (int t = w[0]; t < w[1]; t++) {
          covered[t] = true;
        }
        if (i > 0) {
          int[] prev = windows.get(i - 1);
          int shared = prev[1] - w[0];
          assertEquals(overlap, shared, "overlap between windows " + (i - 1) + " and " + i);
        }
      }
      for (int t = 0; t < tokens; t++) {
        assertTrue(covered[t], "token " + t + " not covered (" + tokens + "/" + size + "/" + overlap + ")");
      }
    }
  }
}
