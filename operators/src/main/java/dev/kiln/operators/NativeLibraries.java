package dev.kiln.operators;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.FlinkUserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this TaskManager can give the job its native libraries (DJL's Hugging Face tokenizers, ONNX
 * Runtime), checked by each task that loads them before it does ({@link ChunkFunction}, {@link
 * EmbedFunction}).
 *
 * <p>A JVM binds a JNI library to the class loader that loaded it, and no other class loader may load the
 * same file. The natives come with the classes of DJL and ONNX Runtime ({@link #NATIVE_CLASSES}), so where
 * those classes come from decides:
 *
 * <ul>
 *   <li><b>the TaskManager's class path</b> — Flink's {@code lib/} with the classes under {@code
 *       classloader.parent-first-patterns.additional} (docs/DEPLOYMENT.md, "Several builds on one
 *       TaskManager"), or everything, as in the mini-cluster of {@code kiln build}: the natives are loaded
 *       once and every job uses them. Any number of builds, one after another or at once.
 *   <li><b>the job jar</b>, in the job's own class loader: the natives bind to this job. The first such job
 *       on a TaskManager JVM claims it ({@link #CLAIM_PROPERTY} names the job) and runs, with a warning; a
 *       later Kiln job there fails at its first task with what to set up, instead of an {@code
 *       UnsatisfiedLinkError: ... already loaded in another classloader} deep in DJL, or a build that
 *       passes or fails by whether the garbage collector has unloaded the earlier job's class loader yet.
 *       The failure suppresses restarts: they would meet the same TaskManager.
 * </ul>
 */
public final class NativeLibraries {
  private static final Logger LOG = LoggerFactory.getLogger(NativeLibraries.class);

  /** The system property that names the job whose class loader holds this JVM's natives (job jar only). */
  public static final String CLAIM_PROPERTY = "kiln.natives.claimed-by";

  /** A class of each jar that carries (or loads) a native library Kiln uses, with the jar's Maven name. */
  static final Map<String, String> NATIVE_CLASSES = nativeClasses();

  /** What every Flink TaskManager needs for several Kiln builds; each message ends with it. */
  static final String SETUP = "Set up every TaskManager once (docs/DEPLOYMENT.md, \"Several builds on one"
      + " TaskManager\"): copy the jars of jobs/target/flink-lib/ (ai.djl:api, ai.djl.huggingface:tokenizers,"
      + " ai.djl.onnxruntime:onnxruntime-engine, com.microsoft.onnxruntime:onnxruntime, gson and jna, in the"
      + " versions the job jar was built with) into Flink's lib/, set"
      + " classloader.parent-first-patterns.additional: [\"ai.djl.\", \"ai.onnxruntime.\"] in its config.yaml,"
      + " and restart the TaskManagers.";

  /** Where one of {@link #NATIVE_CLASSES} was loaded from, seen from the job's class loader. */
  enum Origin {
    /** The TaskManager's class path: shared by every job. */
    SHARED,
    /** The job jar, and the TaskManager's class path lacks it. */
    JOB_JAR,
    /** The job jar, although Flink's lib/ has it too: the parent-first patterns do not cover it. */
    JOB_JAR_OVER_LIB,
    /** Neither: not this check's business (the task that needs it fails naming it). */
    ABSENT
  }

  /** Whether the loaded classes let this job run; {@link #message} says why not, or what to watch for. */
  record Verdict(boolean runs, boolean warn, String message) {}

  private static boolean checked;

  private NativeLibraries() {}

  private static Map<String, String> nativeClasses() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("ai.djl.engine.Engine", "ai.djl:api");
    m.put("ai.djl.huggingface.tokenizers.HuggingFaceTokenizer", "ai.djl.huggingface:tokenizers");
    m.put("ai.djl.onnxruntime.engine.OrtEngine", "ai.djl.onnxruntime:onnxruntime-engine");
    m.put("ai.onnxruntime.OrtEnvironment", "com.microsoft.onnxruntime:onnxruntime");
    return Collections.unmodifiableMap(m);
  }

  /**
   * Checks this job's task on this TaskManager; once per job class loader, before the first native
   * library loads.
   *
   * @throws SuppressRestartsException around an {@link IllegalStateException} that says what to set up
   */
  public static void check(RuntimeContext ctx) {
    ClassLoader kiln = NativeLibraries.class.getClassLoader();
    synchronized (NativeLibraries.class) {
      if (checked) {
        return;
      }
      Verdict v = verdict(kiln, ctx.getJobInfo().getJobId().toHexString(), ctx.getJobInfo().getJobName());
      if (!v.runs()) {
        throw new SuppressRestartsException(new IllegalStateException(v.message()));
      }
      if (v.warn()) {
        LOG.warn(v.message());
      } else if (v.message() != null) {
        LOG.info(v.message());
      }
      checked = true;
    }
  }

  /** The verdict for a job's class loader {@code kiln}, claiming the JVM for {@code job} where it must. */
  static Verdict verdict(ClassLoader kiln, String job, String jobName) {
    if (!(kiln instanceof FlinkUserCodeClassLoader)) {
      // Kiln itself on the JVM's class path (the mini-cluster, YARN's user jar on the class path): one class
      // loader for the JVM's life.
      return new Verdict(true, false, null);
    }
    Map<String, Origin> origins = origins(kiln);
    if (!origins.containsValue(Origin.JOB_JAR) && !origins.containsValue(Origin.JOB_JAR_OVER_LIB)) {
      String versions = versionMismatch(kiln);
      if (versions != null) {
        return new Verdict(false, false, versions);
      }
      return new Verdict(true, false, "DJL and ONNX Runtime come from the TaskManager's class path (Flink's lib/):"
          + " their native libraries are shared by every job");
    }
    String claim = job + " (" + jobName + ")";
    Object previous = System.getProperties().putIfAbsent(CLAIM_PROPERTY, claim);
    if (previous == null || previous.equals(claim)) {
      return new Verdict(true, true, "Kiln job " + claim + " loads " + fromJobJar(origins) + " from the job jar:"
          + " their native libraries bind to this job's class loader, and the next Kiln job on this TaskManager"
          + " will fail. " + diagnosis(origins) + SETUP);
    }
    return new Verdict(false, false, "This TaskManager cannot run Kiln job " + claim + ": Kiln job " + previous
        + " loaded the native libraries of " + fromJobJar(origins) + " from its job jar into its own class"
        + " loader before, and a JVM gives a native library to one class loader only (a second load fails with"
        + " UnsatisfiedLinkError: ... already loaded in another classloader). " + diagnosis(origins) + SETUP);
  }

  /**
   * Runs {@code loader} (what loads the natives: a tokenizer, a model), turning a native library held by
   * another class loader into the failure {@link #explain} makes of it.
   */
  public static <T> T load(Supplier<T> loader) {
    try {
      return loader.get();
    } catch (RuntimeException | LinkageError e) {
      RuntimeException explained = explain(e);
      if (explained != null) {
        throw explained;
      }
      throw e;
    }
  }

  /**
   * The failure for a native library this job's class loader could not load because another holds it
   * ({@code UnsatisfiedLinkError ... already loaded in another classloader}, also wrapped), else
   * {@code null}. A job that passed {@link #check} meets it only when a class loader of its own loaded
   * them before (Flink may give a job a new class loader on a TaskManager it left and came back to).
   */
  static RuntimeException explain(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof UnsatisfiedLinkError && c.getMessage() != null
          && c.getMessage().contains("already loaded in another classloader")) {
        return new SuppressRestartsException(new IllegalStateException("A native library of this job is already"
            + " loaded in this TaskManager by another class loader (" + c.getMessage() + "). " + SETUP, t));
      }
    }
    return null;
  }

  static Map<String, Origin> origins(ClassLoader kiln) {
    Map<String, Origin> origins = new LinkedHashMap<>();
    ClassLoader parent = kiln.getParent();
    for (String name : NATIVE_CLASSES.keySet()) {
      Origin o;
      try {
        // Loaded, not initialised: no native library loads here.
        Class<?> c = Class.forName(name, false, kiln);
        if (c.getClassLoader() != kiln) {
          o = Origin.SHARED;
        } else if (parent != null && parent.getResource(resource(name)) != null) {
          o = Origin.JOB_JAR_OVER_LIB;
        } else {
          o = Origin.JOB_JAR;
        }
      } catch (ClassNotFoundException | LinkageError e) {
        o = Origin.ABSENT;
      }
      origins.put(name, o);
    }
    return origins;
  }

  private static String fromJobJar(Map<String, Origin> origins) {
    List<String> jars = new ArrayList<>();
    origins.forEach((name, o) -> {
      if (o == Origin.JOB_JAR || o == Origin.JOB_JAR_OVER_LIB) {
        jars.add(NATIVE_CLASSES.get(name));
      }
    });
    return String.join(", ", jars);
  }

  /** What this TaskManager has of the setup: jars in lib/ that the patterns miss, jars lib/ lacks. */
  private static String diagnosis(Map<String, Origin> origins) {
    List<String> overLib = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    origins.forEach((name, o) -> {
      if (o == Origin.JOB_JAR_OVER_LIB) {
        overLib.add(name.substring(0, name.indexOf('.', name.indexOf('.') + 1) + 1));
      } else if (o == Origin.JOB_JAR) {
        missing.add(NATIVE_CLASSES.get(name));
      }
    });
    StringBuilder b = new StringBuilder();
    if (!overLib.isEmpty()) {
      b.append("Flink's lib/ has ").append(String.join(", ", overLib.stream().distinct().toList()))
          .append(" but classloader.parent-first-patterns.additional does not cover it, so the job's copy wins. ");
    }
    if (!missing.isEmpty()) {
      b.append("Flink's lib/ lacks ").append(String.join(", ", missing)).append(". ");
    }
    return b.toString();
  }

  /** A DJL in lib/ of another version than the job jar's own copy: its classes would not link, or subtly. */
  private static String versionMismatch(ClassLoader kiln) {
    if (!(kiln instanceof URLClassLoader job)) {
      return null;
    }
    URL own = job.findResource("ai/djl/engine/api.properties");
    URL shared = kiln.getParent() == null ? null : kiln.getParent().getResource("ai/djl/engine/api.properties");
    if (own == null || shared == null) {
      return null; // a job jar without DJL of its own (none built so) has nothing to compare
    }
    String built = djlVersion(own);
    String found = djlVersion(shared);
    if (Objects.equals(built, found)) {
      return null;
    }
    return String.format(Locale.ROOT, "Flink's lib/ holds DJL %s, but this job jar was built with DJL %s: replace"
        + " the DJL and ONNX Runtime jars in lib/ with those of the job's jobs/target/flink-lib/ (docs/DEPLOYMENT.md,"
        + " \"Several builds on one TaskManager\") and restart the TaskManagers.", found, built);
  }

  private static String djlVersion(URL properties) {
    try (InputStream in = properties.openStream()) {
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("djl_version");
    } catch (IOException e) {
      return null;
    }
  }

  private static String resource(String className) {
    return className.replace('.', '/') + ".class";
  }
}
