package dev.kiln.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which GPU a slot gets from Flink's gpu resource and its local slot index (pure: no GPU needed). */
class DeviceSelectorPlacementTest {
  private static final List<Integer> ASSIGNED = List.of(2, 5);

  @Test
  void slotsTakeTheTaskManagersAssignedGpusRoundRobin() {
    List<Integer> devices = List.of(0, 1, 2, 3).stream()
        .map(slot -> DeviceSelector.choose("auto", ASSIGNED, slot, 8).gpu()).toList();
    assertEquals(List.of(2, 5, 2, 5), devices);
    EmbedDevice d = DeviceSelector.choose("gpu", ASSIGNED, 1, 8);
    assertEquals(5, d.gpu());
    assertFalse(d.fellBack());
    assertTrue(d.reason().contains("index 5"), d.reason());
  }

  @Test
  void withoutAGpuResourceTheLocalSlotIndexSpreadsOverVisibleGpus() {
    // Two slots of one host with two GPUs: slots 0 and 1 (global subtasks 0 and 2, say) get GPU 0 and 1.
    assertEquals(List.of(0, 1, 0), List.of(0, 1, 2).stream()
        .map(slot -> DeviceSelector.choose("auto", List.of(), slot, 2).gpu()).toList());
    assertTrue(DeviceSelector.choose("auto", List.of(), 1, 2).reason().contains("local slot 1"));
  }

  @Test
  void explicitSettingsKeepTheirMeaningWithAGpuResource() {
    assertEquals(3, DeviceSelector.choose("gpu:3", ASSIGNED, 0, 8).gpu());
    assertEquals(3, DeviceSelector.choose("gpu:3", ASSIGNED, 1, 8).gpu());
    assertFalse(DeviceSelector.choose("cpu", ASSIGNED, 0, 8).isGpu());
    assertFalse(DeviceSelector.choose("cpu", ASSIGNED, 0, 8).fellBack());
    assertTrue(DeviceSelector.choose("gpu:8", ASSIGNED, 0, 8).fellBack());
  }

  @Test
  void anAssignedGpuTheEngineCannotSeeFallsBackLoudly() {
    EmbedDevice notVisible = DeviceSelector.choose("auto", ASSIGNED, 1, 4);
    assertFalse(notVisible.isGpu());
    assertTrue(notVisible.fellBack());
    assertTrue(notVisible.reason().contains("index 5"), notVisible.reason());
    // Given GPUs but running with CPU natives: even auto warns, since the TaskManager was meant for GPUs.
    EmbedDevice cpuNatives = DeviceSelector.choose("auto", ASSIGNED, 0, 0);
    assertFalse(cpuNatives.isGpu());
    assertTrue(cpuNatives.fellBack());
    assertTrue(cpuNatives.reason().contains("[2, 5]"), cpuNatives.reason());
    // No resource and no GPU: auto is quietly the CPU.
    assertFalse(DeviceSelector.choose("auto", List.of(), 0, 0).fellBack());
  }
}
