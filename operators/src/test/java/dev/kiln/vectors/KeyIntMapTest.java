package dev.kiln.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KeyIntMapTest {
  @Test
  void valuesSurviveGrowthAndAPutReplacesTheValue() {
    KeyIntMap m = new KeyIntMap();
    for (int i = 0; i < 50_000; i++) {
      assertTrue(m.put("doc-" + i, i % 7 - 1));
    }
    assertEquals(50_000, m.size());
    assertFalse(m.put("doc-5", 99), "already there");
    assertEquals(50_000, m.size());
    for (int i = 0; i < 50_000; i++) {
      long[] k = KeyBits.of("doc-" + i);
      assertEquals(i == 5 ? 99 : i % 7 - 1, m.get(k[0], k[1]), "doc-" + i);
    }
    long[] absent = KeyBits.of("doc-50000");
    assertEquals(KeyIntMap.MISSING, m.get(absent[0], absent[1]));
    assertFalse(m.containsKey(absent[0], absent[1]));
  }
}
