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
  void breadcrumbTakesPartSoTheKeyFollowsTheEmbeddingInput() {
    Map<String, String> none = Map.of();
    Chunk plain = new Chunk("d#0", "d", 0, "Title", "text", 0, 4, 1, none);
    Chunk underA = new Chunk("d#0", "d", 0, "Title", "text", 0, 4, 1, none, "Guide > A", "", null, false, "");
    Chunk underB = new Chunk("d#0", "d", 0, "Title", "text", 0, 4, 1, none, "Guide > B", "", null, false, "");
    // no breadcrumb: the plain title-and-text key
    assertEquals(ContentKey.of("s", "Title", "text"), ContentKey.of("s", plain));
    // the same text under another heading is embedded differently, so it must not share a key
    assertNotEquals(ContentKey.of("s", underA), ContentKey.of("s", underB));
    assertNotEquals(ContentKey.of("s", plain), ContentKey.of("s", underA));
    // the breadcrumb field is length-prefixed like the others
    assertNotEquals(ContentKey.of("s", "Title", "x", "text"), ContentKey.of("s", "Title", "", "textx"));
    // settings (breadcrumb prefix on or off) still change every key
    assertNotEquals(ContentKey.of("s", underA), ContentKey.of("t", underA));
  }

  @Test
  void aChunkTravelsWithTheKeyTheChunkStageGaveIt() {
    Chunk fresh = new Chunk("d#0", "d", 0, "Title", "text", 0, 4, 1, Map.of());
    assertEquals(ContentKey.of("s", fresh), ContentKey.forChunk("s", fresh));
    String key = ContentKey.of("s", fresh);
    Chunk keyed = fresh.with(0, "", key, null, "");
    assertEquals(key, ContentKey.forChunk("other settings", keyed));
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
