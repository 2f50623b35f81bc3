package dev.kiln.embed;

import ai.djl.engine.Engine;
import ai.djl.util.cuda.CudaUtils;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtProvider;
import dev.kiln.config.ConfigException;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses each embedding slot's device from {@code embed.device}:
 *
 * <ul>
 *   <li>{@code auto} (default): a GPU when the engine sees GPUs, else the CPU;
 *   <li>{@code gpu}: the same, but a missing GPU is a loud warning (the build still runs, on the CPU);
 *   <li>{@code gpu:N}: GPU {@code N} for every slot of this task manager (override the spreading);
 *   <li>{@code cpu}: the CPU even when GPUs are visible.
 * </ul>
 *
 * <p>Which GPU ({@code auto}, {@code gpu}): the slot's local index on its TaskManager picks one of the
 * GPU indexes Flink's external resource framework assigned to that TaskManager
 * ({@code external-resource.gpu.*}, the GPU plugin), round robin; without that resource configured,
 * the local index modulo the GPUs the engine sees. Never the global subtask index: subtasks 0 and 2 of a
 * job can share a host with two GPUs, and {@code subtask mod 2} would put both on GPU 0.
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
      case "auto" -> {
        return -2;
      }
      case "cpu" -> {
        return -3;
      }
      case "gpu", "cuda" -> {
        return -1;
      }
      default -> {
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
  }

  /** {@link #choose(String, List, int, int)} without a Flink GPU resource (tools, tests). */
  public static EmbedDevice choose(String requested, int localSlot, int visibleGpus) {
    return choose(requested, List.of(), localSlot, visibleGpus);
  }

  /**
   * The pure decision (unit-tested without a GPU).
   *
   * @param gpuIndexes the GPU indexes Flink assigned to this TaskManager (external resource {@code gpu}),
   *     empty when none is configured
   * @param localSlot this slot's index among the embed slots of its TaskManager
   * @param visibleGpus GPUs the engine can use in this process
   */
  public static EmbedDevice choose(String requested, List<Integer> gpuIndexes, int localSlot, int visibleGpus) {
    int want = parse(requested);
    if (want == -3) {
      return new EmbedDevice(-1, false, "embed.device=cpu");
    }
    if (visibleGpus == 0) {
      // auto on a CPU host is the normal case; a TaskManager that was given GPUs but cannot use them is not.
      boolean loud = want != -2 || !gpuIndexes.isEmpty();
      String why = gpuIndexes.isEmpty() ? "no GPU visible to the engine"
          : "Flink assigned GPU(s) " + gpuIndexes + " to this TaskManager but none is visible to the engine";
      return loud
          ? new EmbedDevice(-1, true, "embed.device=" + requested + ": " + why
              + " (CPU natives on the classpath? build with -Pgpu / CUDA natives in the TaskManager image; CUDA_VISIBLE_DEVICES?)")
          : new EmbedDevice(-1, false, why);
    }
    if (want >= 0) {
      return want >= visibleGpus
          ? new EmbedDevice(-1, true, "embed.device=" + requested + " but only " + visibleGpus + " GPU(s) are visible")
          : new EmbedDevice(want, false, "embed.device=" + requested);
    }
    if (gpuIndexes.isEmpty()) {
      return new EmbedDevice(localSlot % visibleGpus, false,
          "local slot " + localSlot + " mod " + visibleGpus + " visible GPU(s), no Flink gpu resource configured");
    }
    int index = gpuIndexes.get(localSlot % gpuIndexes.size());
    if (index >= visibleGpus) {
      return new EmbedDevice(-1, true, "Flink assigned GPU index " + index + " (of " + gpuIndexes
          + ") to local slot " + localSlot + " but the engine sees only " + visibleGpus
          + " GPU(s) (CUDA_VISIBLE_DEVICES renumbers them; leave it unset or let the GPU plugin's script set it)");
    }
    return new EmbedDevice(index, false, "local slot " + localSlot + " → Flink gpu resource index " + index
        + " of " + gpuIndexes);
  }

  /** {@link #select(String, List, int, ModelEngine)} without a Flink GPU resource (tools, tests). */
  public static EmbedDevice select(String requested, int localSlot, ModelEngine engine) {
    return select(requested, List.of(), localSlot, engine);
  }

  /** Chooses for a slot, asking the engine how many GPUs it can use, and logs the choice. */
  public static EmbedDevice select(String requested, List<Integer> gpuIndexes, int localSlot, ModelEngine engine) {
    return select(requested, gpuIndexes, localSlot, visibleGpus(requested, engine));
  }

  /**
   * Whether {@code requested} spreads slots over GPUs by their local index ({@code auto}, {@code gpu}), so
   * that a slot must claim one first; {@code cpu} and a fixed {@code gpu:N} need no claim.
   */
  public static boolean spreadsOverGpus(String requested) {
    int want = parse(requested);
    return want == -2 || want == -1;
  }

  /** GPUs the engine can use for {@code requested}: none for {@code cpu}, without asking the engine. */
  public static int visibleGpus(String requested, ModelEngine engine) {
    return parse(requested) == -3 ? 0 : visibleGpus(engine);
  }

  /** {@link #choose} with {@code visible} counted by {@link #visibleGpus(String, ModelEngine)}; logs the choice. */
  public static EmbedDevice select(String requested, List<Integer> gpuIndexes, int localSlot, int visible) {
    EmbedDevice d = choose(requested, gpuIndexes, localSlot, visible);
    if (d.fellBack()) {
      LOG.warn("EMBEDDING ON CPU: {}; local slot {} falls back to the CPU and will be much slower", d.reason(), localSlot);
    } else {
      LOG.info("embedding local slot {} on {} ({})", localSlot, d, d.reason());
    }
    return d;
  }

  /**
   * GPUs the engine can use. ONNX Runtime's CPU build cannot use a GPU even when one is present, so
   * it counts only when the CUDA execution provider is compiled in.
   */
  public static int visibleGpus(ModelEngine engine) {
    try {
      DjlEnvironment.prepare();
      return DjlEnvironment.inDjlContext(() -> {
        if (engine == ModelEngine.ONNX) {
          boolean cuda = OrtEnvironment.getAvailableProviders()
              .contains(OrtProvider.CUDA);
          return cuda ? CudaUtils.getGpuCount() : 0;
        }
        return Engine.getEngine(engine.djlName()).getGpuCount();
      });
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("cannot count GPUs for {}: {}", engine, e.toString());
      return 0;
    }
  }
}
