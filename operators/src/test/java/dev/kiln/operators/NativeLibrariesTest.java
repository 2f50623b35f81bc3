package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.operators.NativeLibraries.Origin;
import dev.kiln.operators.NativeLibraries.Verdict;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.ChildFirstClassLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a job's class loader finds DJL and ONNX Runtime, and what that means for the next job on the
 * same TaskManager, on Flink's own child-first class loader over the real jars.
 */
class NativeLibrariesTest {
  private static final String[] PATTERNS = {"ai.djl.", "ai.onnxruntime."};

  @BeforeEach
  @AfterEach
  void noClaim() {
    System.clearProperty(NativeLibraries.CLAIM_PROPERTY);
  }

  /** The jars of DJL and ONNX Runtime on this test's class path: what a job jar and Flink's lib/ would hold. */
  private static URL[] nativeJars() throws Exception {
    Set<URL> jars = new HashSet<>();
    for (String name : NativeLibraries.NATIVE_CLASSES.keySet()) {
      jars.add(Class.forName(name, false, NativeLibrariesTest.class.getClassLoader()).getProtectionDomain()
          .getCodeSource().getLocation());
    }
    return jars.toArray(URL[]::new);
  }

  private static ChildFirstClassLoader jobLoader(URL[] jobJar, ClassLoader lib, String... patterns) {
    return new ChildFirstClassLoader(jobJar, lib, patterns, t -> { });
  }

  @Test
  void kilnOnTheClassPathRunsAsItAlwaysDid() {
    Verdict v = NativeLibraries.verdict(getClass().getClassLoader(), "job-a", "a");
    assertTrue(v.runs());
    assertFalse(v.warn());
    assertNull(System.getProperty(NativeLibraries.CLAIM_PROPERTY));
  }

  @Test
  void jarsInLibUnderTheParentFirstPatternsAreSharedAndClaimNothing() throws Exception {
    try (ChildFirstClassLoader job = jobLoader(nativeJars(), getClass().getClassLoader(), PATTERNS)) {
      assertTrue(NativeLibraries.origins(job).values().stream().allMatch(o -> o == Origin.SHARED),
          NativeLibraries.origins(job).toString());
      for (String job2 : List.of("job-a", "job-b")) {
        Verdict v = NativeLibraries.verdict(job, job2, "build");
        assertTrue(v.runs(), v.message());
        assertFalse(v.warn(), v.message());
      }
      assertNull(System.getProperty(NativeLibraries.CLAIM_PROPERTY));
    }
  }

  @Test
  void aJobJarWithoutTheSetupClaimsTheTaskManagerAndTheNextJobIsToldWhatToSetUp() throws Exception {
    try (ChildFirstClassLoader first = jobLoader(nativeJars(), ClassLoader.getPlatformClassLoader());
        ChildFirstClassLoader second = jobLoader(nativeJars(), ClassLoader.getPlatformClassLoader())) {
      assertTrue(NativeLibraries.origins(first).values().stream().allMatch(o -> o == Origin.JOB_JAR));
      Verdict v = NativeLibraries.verdict(first, "job-a", "nightly");
      assertTrue(v.runs());
      assertTrue(v.warn());
      assertTrue(v.message().contains("the next Kiln job on this TaskManager will fail"), v.message());
      assertTrue(NativeLibraries.verdict(first, "job-a", "nightly").runs(), "the claiming job's other tasks");

      Verdict next = NativeLibraries.verdict(second, "job-b", "nightly");
      assertFalse(next.runs());
      String m = next.message();
      for (String expected : List.of("job-b (nightly)", "job-a (nightly)", "already loaded in another classloader",
          "Flink's lib/ lacks ai.djl:api, ai.djl.huggingface:tokenizers, ai.djl.onnxruntime:onnxruntime-engine,"
              + " com.microsoft.onnxruntime:onnxruntime", "jobs/target/flink-lib/",
          "classloader.parent-first-patterns.additional: [\"ai.djl.\", \"ai.onnxruntime.\"]",
          "Several builds on one TaskManager")) {
        assertTrue(m.contains(expected), "'" + expected + "' in: " + m);
      }
    }
  }

  @Test
  void jarsInLibWithoutThePatternsAreNamedAsSuch() throws Exception {
    try (ChildFirstClassLoader first = jobLoader(nativeJars(), getClass().getClassLoader());
        ChildFirstClassLoader second = jobLoader(nativeJars(), getClass().getClassLoader())) {
      assertTrue(NativeLibraries.origins(first).values().stream().allMatch(o -> o == Origin.JOB_JAR_OVER_LIB));
      assertTrue(NativeLibraries.verdict(first, "job-a", "a").runs());
      Verdict next = NativeLibraries.verdict(second, "job-b", "b");
      assertFalse(next.runs());
      assertTrue(next.message().contains("Flink's lib/ has ai.djl., ai.onnxruntime. but"
          + " classloader.parent-first-patterns.additional does not cover it"), next.message());
      assertFalse(next.message().contains("lacks"), next.message());
    }
  }

  @Test
  void djlInLibOfAnotherVersionThanTheJobJarsIsRefused(@TempDir Path dir) throws Exception {
    Path props = Files.createDirectories(dir.resolve("ai/djl/engine")).resolve("api.properties");
    Files.writeString(props, "djl_version=0.1.0\n");
    List<URL> jobJar = new ArrayList<>(List.of(dir.toUri().toURL()));
    jobJar.addAll(List.of(nativeJars()));
    try (ChildFirstClassLoader job = jobLoader(jobJar.toArray(URL[]::new), getClass().getClassLoader(), PATTERNS)) {
      Verdict v = NativeLibraries.verdict(job, "job-a", "a");
      assertFalse(v.runs());
      assertTrue(v.message().matches("Flink's lib/ holds DJL \\d+\\.\\d+\\.\\d+, but this job jar was built with DJL"
          + " 0\\.1\\.0: .*jobs/target/flink-lib/.*"), v.message());
    }
  }

  @Test
  void aNativeLibraryHeldByAnotherClassLoaderIsExplainedAndOtherFailuresAreNot() {
    UnsatisfiedLinkError link = new UnsatisfiedLinkError("Native Library /tmp/djl/libtokenizers.so already loaded"
        + " in another classloader");
    NoClassDefFoundError wrapped = new NoClassDefFoundError("Could not initialize class LibUtils");
    wrapped.initCause(new ExceptionInInitializerError(link));
    RuntimeException e = NativeLibraries.explain(wrapped);
    assertInstanceOf(SuppressRestartsException.class, e);
    assertTrue(e.getCause().getMessage().contains("libtokenizers.so already loaded in another classloader"));
    assertTrue(e.getCause().getMessage().contains("jobs/target/flink-lib/"));
    assertNull(NativeLibraries.explain(new UnsatisfiedLinkError("no onnxruntime in java.library.path")));
    assertNull(NativeLibraries.explain(new IllegalStateException("cannot load embedding model")));
    IllegalStateException other = new IllegalStateException("model missing");
    assertSame(other, assertThrows(IllegalStateException.class, () -> NativeLibraries.load(() -> {
      throw other;
    })));
  }

}
