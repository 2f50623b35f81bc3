package dev.kiln.embed;

import ai.djl.engine.Engine;
import ai.djl.util.cuda.CudaUtils;
import dev.kiln.config.ConfigException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses each embedding slot's device from {@code embed.device}:
 *
 * <ul>
 *   <li>{@code auto} (default): GPU {@code subtask mod visibleGpus} when the engine sees GPUs, else the CPU;
 *   <li>{@code gpu}: the same, but a missing GPU is a loud warning (the build still runs, on the CPU);
 *   <li>{@code gpu:N}: GPU {@code N} for every slot of this task manager (override the spreading);
 *   <li>{@code cpu}: the CPU even when GPUs are visible.
 * </ul>
 */
public final class DeviceSelector {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceSelector.class);

  private DeviceSelector() {}

  /** Checks the setting's syntax; {@link ConfigException} names the option. */
  public static void validate(String requested) {
    parse(requested);
  }

  /** -2 = auto, -3 = cpu, -1 = any gpu, N = that gpu. */
  private static int parse(String requested) {
    String r = requested == null ? "auto" : requested.trim().toLowerCase(Locale.ROOT);
    switch (r) {
      case "auto": return -2;
      case "cpu": return -3;
      case "gpu": case "cuda": return -1;
      default:
        if (r.startsWith("gpu:") || r.startsWith("cuda:")) {
          try {
            int n = Integer.parseInt(r.substring(r.indexOf(':') + 1));
            if (n >= 0) {
              return n;
            }
          } catch (NumberFormatException e) {
            // fall through to the error
          }
        }
        throw new ConfigException("embed.device must be auto, cpu, gpu or gpu:N, was '" + requested + "'");
    }
  }

  /** The pure decision, given the GPUs visible to the engine (unit-tested without a GPU). */
  public static EmbedDevice choose(String requested, int subtask, int visibleGpus) {
    int want = parse(requested);
    if (want == -3) {
      return new EmbedDevice(-1, false, "embed.device=cpu");
    }
    if (want == -2) {
      return visibleGpus > 0
          ? new EmbedDevice(subtask % visibleGpus, false,
              "subtask " + subtask + " mod " + visibleGpus + " visible GPU(s)")
          : new EmbedDevice(-1, false, "no GPU visible to the engine");
    }
    if (visibleGpus == 0) {
      return new EmbedDevice(-1, true, "embed.device=" + requested + " but no GPU is visible to the engine"
          + " (CPU natives on the classpath? build with -Pgpu; CUDA_VISIBLE_DEVICES?)");
    }
    if (want == -1) {
      return new EmbedDevice(subtask % visibleGpus, false,
          "subtask " + subtask + " mod " + visibleGpus + " visible GPU(s)");
    }
    if (want >= visibleGpus) {
      return new EmbedDevice(-1, true, "embed.device=" + requested + " but only " + visibleGpus
          + " GPU(s) are visible");
    }
    return new EmbedDevice(want, false, "embed.device=" + requested);
  }

  /** Chooses for a slot, asking the engine how many GPUs it can use, and logs the choice. */
  public static EmbedDevice select(String requested, int subtask, ModelEngine engine) {
    int visible = parse(requested) == -3 ? 0 : visibleGpus(engine);
    EmbedDevice d = choose(requested, subtask, visible);
    if (d.fellBack()) {
      LOG.warn("EMBEDDING ON CPU: {}; subtask {} falls back to the CPU and will be much slower", d.reason(), subtask);
    } else {
      LOG.info("embedding subtask {} on {} ({})", subtask, d, d.reason());
    }
    return d;
  }

  /**
   * GPUs the engine can use. ONNX Runtime's CPU build cannot use a GPU even when one is present, so
   * it counts only when the CUDA execution provider is compiled in.
   */
  public static int visibleGpus(ModelEngine engine) {
    try {
      if (engine == ModelEngine.ONNX) {
        boolean cuda = ai.onnxruntime.OrtEnvironment.getAvailableProviders()
            .contains(ai.onnxruntime.OrtProvider.CUDA);
        return cuda ? CudaUtils.getGpuCount() : 0;
      }
      DjlEnvironment.ensureOffline();
      return Engine.getEngine(engine.djlName()).getGpuCount();
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("cannot count GPUs for {}: {}", engine, e.toString());
      return 0;
    }
  }
}
