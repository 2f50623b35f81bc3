package dev.kiln.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceSelectorTest {
  @Test
  void autoSpreadsSubtasksOverVisibleGpus() {
    assertEquals(List.of(0, 1, 2, 0, 1), List.of(0, 1, 2, 3, 4).stream()
        .map(s -> DeviceSelector.choose("auto", s, 3).gpu()).toList());
    assertFalse(DeviceSelector.choose("auto", 4, 3).fellBack());
  }

  @Test
  void autoWithoutGpusUsesTheCpuQuietly() {
    EmbedDevice d = DeviceSelector.choose("auto", 1, 0);
    assertFalse(d.isGpu());
    assertFalse(d.fellBack());
  }

  @Test
  void askingForAGpuWithoutOneFallsBackLoudly() {
    EmbedDevice d = DeviceSelector.choose("gpu", 0, 0);
    assertFalse(d.isGpu());
    assertTrue(d.fellBack());
    assertTrue(d.reason().contains("no GPU"), d.reason());
    EmbedDevice e = DeviceSelector.choose("gpu:2", 0, 2);
    assertTrue(e.fellBack());
    assertFalse(e.isGpu());
  }

  @Test
  void explicitChoicesOverrideTheSpreading() {
    assertEquals(1, DeviceSelector.choose("gpu:1", 0, 4).gpu());
    assertEquals(1, DeviceSelector.choose("gpu:1", 3, 4).gpu());
    assertFalse(DeviceSelector.choose("cpu", 0, 8).isGpu());
    assertEquals(3, DeviceSelector.choose("gpu", 7, 4).gpu());
  }

  @Test
  void badSettingsNameTheOption() {
    ConfigException e = assertThrows(ConfigException.class, () -> DeviceSelector.validate("tpu"));
    assertTrue(e.getMessage().contains("embed.device"));
    assertThrows(ConfigException.class, () -> DeviceSelector.validate("gpu:-1"));
  }

  @Test
  void selectOnThisMachineAgreesWithTheGpusTheEngineSees() {
    // On a CPU-only build or host the slot must still come up, on the CPU, saying so; where the engine
    // sees GPUs, the first subtask gets GPU 0 without a fallback. Either way the choice follows the count.
    int visible = DeviceSelector.visibleGpus(ModelEngine.ONNX);
    EmbedDevice d = DeviceSelector.select("gpu", 0, ModelEngine.ONNX);
    if (visible == 0) {
      assertFalse(d.isGpu());
      assertTrue(d.fellBack());
      assertTrue(d.reason().contains("no GPU"), d.reason());
    } else {
      assertTrue(d.isGpu());
      assertFalse(d.fellBack());
      assertEquals(0, d.gpu());
    }
    assertFalse(DeviceSelector.select("cpu", 0, ModelEngine.ONNX).isGpu(), "cpu is honoured on any host");
    assertFalse(DeviceSelector.select("cpu", 0, ModelEngine.ONNX).fellBack());
  }

  @Test
  void halfPrecisionFilesAreRefusedOnTheCpu() {
    ModelSpec base = ModelRegistry.resolve("all-minilm-l6-v2-q");
    ModelSpec fp16 = new ModelSpec(base.name(), base.modelResource(), base.tokenizerResource(), base.dimension(),
        base.pooling(), base.normalize(), base.maxTokens(), "", "", ModelEngine.ONNX, null, null, "fp16");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> TextEmbedder.open(fp16, 4, 1, DeviceSelector.choose("gpu", 0, 0)));
    assertTrue(e.getMessage().contains("GPU"), e.getMessage());
  }
}
