package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.junit.jupiter.api.Test;

class SlotPlacementTest {
  /** The shape of what Flink's GPU driver reports: one info per GPU with an {@code index} property. */
  private record Info(Map<String, String> properties) implements ExternalResourceInfo {
    @Override
    public Optional<String> getProperty(String key) {
      return Optional.ofNullable(properties.get(key));
    }

    @Override
    public Collection<String> getKeys() {
      return properties.keySet();
    }
  }

  @Test
  void gpuIndexesAreReadFromTheIndexPropertySortedAndMalformedOnesSkipped() {
    List<ExternalResourceInfo> infos = List.of(new Info(Map.of("index", "5")), new Info(Map.of("index", " 2")),
        new Info(Map.of("uuid", "GPU-1")), new Info(Map.of("index", "two")));
    assertEquals(List.of(2, 5), SlotPlacement.gpuIndexes(infos));
    assertEquals(List.of(), SlotPlacement.gpuIndexes(List.of()));
  }

  @Test
  void liveSlotsHoldDistinctLocalIndexesAndAFreedIndexIsReused() {
    int a = SlotPlacement.claim();
    int b = SlotPlacement.claim();
    try {
      assertNotEquals(a, b);
      SlotPlacement.release(a);
      int again = SlotPlacement.claim(); // a restarted subtask takes the freed index back
      assertEquals(a, again);
    } finally {
      SlotPlacement.release(a);
      SlotPlacement.release(b);
    }
  }
}
