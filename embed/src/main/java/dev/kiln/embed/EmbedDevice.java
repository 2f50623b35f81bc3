package dev.kiln.embed;

import ai.djl.Device;
import java.io.Serializable;

/**
 * Where one embedding slot runs.
 *
 * @param gpu GPU index, or -1 for the CPU
 * @param fellBack whether a GPU was asked for but none was usable, so the slot runs on the CPU
 * @param reason one line for the log: why this device
 */
public record EmbedDevice(int gpu, boolean fellBack, String reason) implements Serializable {
  public static final EmbedDevice CPU = new EmbedDevice(-1, false, "CPU requested");

  public boolean isGpu() {
    return gpu >= 0;
  }

  public Device djlDevice() {
    return isGpu() ? Device.gpu(gpu) : Device.cpu();
  }

  @Override
  public String toString() {
    return isGpu() ? "gpu:" + gpu : "cpu";
  }
}
