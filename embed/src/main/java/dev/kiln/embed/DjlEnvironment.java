package dev.kiln.embed;

import ai.djl.engine.Engine;
import ai.djl.repository.zoo.ModelZoo;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What DJL needs before Kiln's first use of it in a JVM (or in a class loader of one), set or done
 * once, before the first DJL class that reads it loads.
 *
 * <ul>
 *   <li>Offline: without these properties DJL probes a cloud metadata address and tries to download
 *       engines at start-up.
 *   <li>No helper engine behind ONNX Runtime ({@code ai.djl.onnx.disable_alternative}): DJL would
 *       otherwise start PyTorch, with its natives, next to every ONNX model for array operations ONNX
 *       Runtime lacks, and Kiln's embedders use none (their arrays are ONNX Runtime tensors in and
 *       out). PyTorch is loaded for TorchScript models only.
 *   <li>DJL's engine and model zoo registries (static, filled once from {@link java.util.ServiceLoader} on
 *       the thread's context class loader) are filled with DJL's own class loader as context. Where DJL
 *       comes from Flink's {@code lib/} (docs/DEPLOYMENT.md, "Several builds on one TaskManager") it outlives
 *       every job: filled from the first job's class loader they would register that job's copy of an
 *       engine missing from {@code lib/} (PyTorch, from the job jar), keep its class loader for the
 *       TaskManager's life and hand a closed class loader to the next job. Where DJL comes with the job
 *       (the job jar, the mini-cluster, the CLI) this is the class loader it has anyway.
 * </ul>
 */
public final class DjlEnvironment {
  private static boolean registered;

  private DjlEnvironment() {}

  /** Sets DJL's properties unless the JVM has them, and fills its registries; idempotent. */
  public static synchronized void prepare() {
    setIfAbsent("ai.djl.offline", "true");
    setIfAbsent("OPT_OUT_TRACKING", "true");
    Path cache = ModelFiles.cacheDir().resolve("djl");
    setIfAbsent("DJL_CACHE_DIR", cache.toString());
    setIfAbsent("ENGINE_CACHE_DIR", cache.toString());
    setIfAbsent("ai.djl.onnx.disable_alternative", "true");
    if (!registered) {
      fillRegistries();
      registered = true;
    }
  }

  /** The engines DJL found ({@code OnnxRuntime}, {@code PyTorch}, ...), after {@link #prepare()}. */
  public static Set<String> engines() {
    prepare();
    return Engine.getAllEngines();
  }

  private static void fillRegistries() {
    inDjlContext(() -> {
      // Each call runs its class's static initialiser (the ServiceLoader scan) unless an earlier job did.
      Engine.getAllEngines();
      return ModelZoo.listModelZoo();
    });
  }

  /**
   * Runs {@code action} (what loads DJL's engines, natives and models) with DJL's own class loader as the
   * thread's context class loader. A thread that DJL, JNA or an engine starts meanwhile (JNA's cleaner
   * lives as long as the JVM) inherits that class loader; where DJL is shared from Flink's {@code lib/}, it
   * would otherwise hold the context class loader of whichever job came first for the TaskManager's life
   * (a closed one, once that job has ended). Where DJL comes with the job it is the job's class loader anyway.
   */
  static <T> T inDjlContext(Supplier<T> action) {
    Thread thread = Thread.currentThread();
    ClassLoader context = thread.getContextClassLoader();
    thread.setContextClassLoader(Engine.class.getClassLoader());
    try {
      return action.get();
    } finally {
      thread.setContextClassLoader(context);
    }
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null && System.getenv(key) == null) {
      System.setProperty(key, value);
    }
  }
}
