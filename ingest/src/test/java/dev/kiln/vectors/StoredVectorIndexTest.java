package dev.kiln.vectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.ContentKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Reusable vectors looked up by key from a temporary file, and the 128-bit key set. */
class StoredVectorIndexTest {
  @Test
  void everyAddedKeyFindsItsOwnVectorAndUnknownKeysFindNothing() throws Exception {
    Random rnd = new Random(7);
    List<String> keys = new ArrayList<>();
    List<float[]> vectors = new ArrayList<>();
    // More rows than the 1 MiB write buffer holds, so reads cross flushed blocks.
    for (int i = 0; i < 5000; i++) {
      keys.add(ContentKey.of("settings", "title " + i, "text " + i));
      float[] v = new float[64];
      for (int d = 0; d < v.length; d++) {
        v[d] = rnd.nextFloat();
      }
      vectors.add(v);
    }
    keys.add("not-a-sha256-key"); // any string works, hashed first
    vectors.add(new float[64]);
    Path file;
    try (StoredVectorIndex.Builder b = new StoredVectorIndex.Builder(64)) {
      for (int i = 0; i < keys.size(); i++) {
        b.add(keys.get(i), vectors.get(i));
      }
      try (StoredVectorIndex index = b.build()) {
        assertEquals(keys.size(), index.size());
        for (int i = keys.size() - 1; i >= 0; i--) {
          assertArrayEquals(vectors.get(i), index.get(keys.get(i)), 0f, keys.get(i));
        }
        assertNull(index.get(ContentKey.of("settings", "title", "never added")));
        assertNull(index.get("other-string"));
        file = index.file();
        assertTrue(Files.exists(file));
      }
    }
    assertFalse(Files.exists(file), "the temporary file is deleted on close");
  }

  @Test
  void anEmptyIndexFindsNothing() throws Exception {
    try (StoredVectorIndex index = StoredVectorIndex.empty(4)) {
      assertNull(index.get(ContentKey.of("s", "t", "x")));
      assertEquals(0, index.size());
    }
  }

  @Test
  void keySetAddsEachKeyOnceThroughGrowth() {
    KeySet set = new KeySet();
    for (int i = 0; i < 10_000; i++) {
      assertTrue(set.add(ContentKey.of("s", "t", Integer.toString(i))));
    }
    for (int i = 0; i < 10_000; i += 7) {
      assertFalse(set.add(ContentKey.of("s", "t", Integer.toString(i))));
    }
    assertTrue(set.add("plain string"));
    assertFalse(set.add("plain string"));
    assertEquals(10_001, set.size());
  }
}
