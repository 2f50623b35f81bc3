package dev.kiln.embed;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * DJL shared from Flink's {@code lib/} by a job whose own jar carries one more engine (PyTorch): DJL's
 * static engine registry, filled by the first job on a TaskManager and kept for its life, must hold only
 * the engines beside DJL, or it would keep that job's class loader and hand it to every later job. The
 * TaskManager is played by two class loaders: {@code lib/} (DJL, its ONNX Runtime engine, the tokenizers)
 * and a job's child-first class loader over the rest of this test's class path with {@code ai.djl.} and
 * {@code ai.onnxruntime.} parent-first, as Flink's {@code classloader.parent-first-patterns.additional} makes it.
 */
class DjlEnvironmentTest {
  private static final List<String> PARENT_FIRST = List.of("ai.djl.", "ai.onnxruntime.");

  /** Flink's child-first user code class loader, in short. */
  private static final class JobClassLoader extends URLClassLoader {
    JobClassLoader(URL[] urls, ClassLoader parent) {
      super(urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          boolean parentFirst = name.startsWith("java.") || PARENT_FIRST.stream().anyMatch(name::startsWith);
          try {
            c = parentFirst ? getParent().loadClass(name) : findClass(name);
          } catch (ClassNotFoundException e) {
            c = parentFirst ? findClass(name) : getParent().loadClass(name);
          }
        }
        if (resolve) {
          resolveClass(c);
        }
        return c;
      }
    }
  }

  private static URL jarOf(String className) throws Exception {
    return Class.forName(className, false, DjlEnvironmentTest.class.getClassLoader()).getProtectionDomain()
        .getCodeSource().getLocation();
  }

  @Test
  void djlsEngineRegistryHoldsOnlyTheEnginesBesideDjlThoughTheFirstJobCarriesMore() throws Exception {
    Set<URL> lib = new LinkedHashSet<>();
    for (String c : List.of("ai.djl.engine.Engine", "ai.djl.onnxruntime.engine.OrtEngine",
        "ai.onnxruntime.OrtEnvironment", "ai.djl.huggingface.tokenizers.HuggingFaceTokenizer", "com.google.gson.Gson",
        "com.sun.jna.Native", "org.slf4j.Logger")) {
      lib.add(jarOf(c));
    }
    List<URL> job = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      URL url = Path.of(entry).toUri().toURL();
      if (!lib.contains(url)) {
        job.add(url);
      }
    }
    Thread thread = Thread.currentThread();
    ClassLoader context = thread.getContextClassLoader();
    try (URLClassLoader shared = new URLClassLoader(lib.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        JobClassLoader first = new JobClassLoader(job.toArray(URL[]::new), shared)) {
      // The job carries PyTorch's engine; its tasks run with the job's class loader as context, as Flink's do.
      assertSame(first, first.loadClass("ai.djl.pytorch.engine.PtEngineProvider").getClassLoader());
      thread.setContextClassLoader(first);
      Set<?> engines = (Set<?>) first.loadClass(DjlEnvironment.class.getName()).getMethod("engines").invoke(null);
      assertTrue(engines.contains("OnnxRuntime"), engines.toString());
      assertFalse(engines.contains("PyTorch"), "a job's engine in the TaskManager's registry: " + engines);
      assertSame(shared, first.loadClass("ai.djl.engine.Engine").getClassLoader());
    } finally {
      thread.setContextClassLoader(context);
    }
  }
}
