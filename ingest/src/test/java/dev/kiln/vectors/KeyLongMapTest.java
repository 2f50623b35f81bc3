package dev.kiln.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KeyLongMapTest {
  /** Values past the int range, negative ones among them. */
  private static long value(int i) {
    return (i % 7 - 1) * (1L << 41) + i;
  }

  @Test
  void valuesSurviveGrowthAndAPutReplacesTheValue() {
    KeyLongMap m = new KeyLongMap();
    for (int i = 0; i < 50_000; i++) {
      assertTrue(m.put("doc-" + i, value(i)));
    }
    assertEquals(50_000, m.size());
    assertFalse(m.put("doc-5", 99), "already there");
    assertEquals(50_000, m.size());
    for (int i = 0; i < 50_000; i++) {
      long[] k = KeyBits.ofId("doc-" + i);
      assertEquals(i == 5 ? 99 : value(i), m.get(k[0], k[1]), "doc-" + i);
    }
    long[] absent = KeyBits.ofId("doc-50000");
    assertEquals(KeyLongMap.MISSING, m.get(absent[0], absent[1]));
    assertFalse(m.containsKey(absent[0], absent[1]));
  }
}
