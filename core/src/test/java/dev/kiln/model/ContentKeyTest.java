package dev.kiln.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ChunkerConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContentKeyTest {
  @Test
  void keyDependsOnSettingsTitleAndTextOnly() {
    String k = ContentKey.of("s", "Title", "text");
    assertEquals(64, k.length());
    assertEquals(k, ContentKey.of("s", new Chunk("d#0", "d", 0, "Title", "text", 0, 4, 1, Map.of())));
    assertEquals(k, ContentKey.of("s", new Chunk("other#7", "other", 7, "Title", "text", 9, 13, 1, Map.of("a", "b"))));
    assertNotEquals(k, ContentKey.of("t", "Title", "text"));
    assertNotEquals(k, ContentKey.of("s", "Title ", "text"));
    // length prefixes: moving characters between fields changes the key
    assertNotEquals(ContentKey.of("s", "ab", "c"), ContentKey.of("s", "a", "bc"));
  }

  @Test
  void settingsFingerprintFollowsEveryChunkerField() {
    ChunkerConfig a = new ChunkerConfig();
    ChunkerConfig b = new ChunkerConfig();
    assertEquals(ContentKey.settingsFingerprint(a, "m"), ContentKey.settingsFingerprint(b, "m"));
    b.overlap = a.overlap + 1;
    assertNotEquals(ContentKey.settingsFingerprint(a, "m"), ContentKey.settingsFingerprint(b, "m"));
    assertNotEquals(ContentKey.settingsFingerprint(a, "m"), ContentKey.settingsFingerprint(a, "n"));
  }

  @Test
  void partitionsAreStableAndSpread() {
    Map<Integer, Integer> counts = new HashMap<>();
    for (int i = 0; i < 4000; i++) {
      String key = ContentKey.of("s", "", "chunk " + i);
      int p = ContentKey.partition(key, 4);
      assertEquals(p, ContentKey.partition(key, 4));
      counts.merge(p, 1, Integer::sum);
    }
    assertEquals(4, counts.size());
    counts.values().forEach(c -> assertTrue(c > 800 && c < 1200, counts.toString()));
  }
}
