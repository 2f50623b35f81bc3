package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.ingest.DocumentFixtures;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded job jar holds what {@code flink run} needs and nothing a TaskManager image provides: never
 * CUDA natives (under {@code -Pgpu} they come from the image), and no bundled models or engine natives
 * when built with {@code -Dkiln.jar.models=none} / {@code -Dkiln.jar.natives=none} (docs/DEPLOYMENT.md).
 */
class JobJarITCase {
  /** CUDA runtime and CUDA-built engine libraries, and PyTorch's per-CUDA native directories. */
  static final Pattern CUDA = Pattern.compile("(?i)(^|/)(lib)?(cudart|cublas|cublaslt|cudnn|cufft|curand|cusparse"
      + "|cusolver|nccl|nvrtc|nvjitlink|nvtoolsext|onnxruntime_providers_cuda|onnxruntime_providers_tensorrt"
      + "|c10_cuda|torch_cuda)[^/]*\\.(so|dll)(\\.[0-9.]+)?$|(^|/)pytorch/cu[0-9]+/");
  static Path jar;
  static List<String> entries;

  @BeforeAll
  static void open() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("target"))) {
      jar = s.filter(p -> p.getFileName().toString().matches("kiln-jobs-.*-flink\\.jar")).findFirst()
          .orElseThrow(() -> new AssertionError("target/kiln-jobs-*-flink.jar is missing: build with 'mvn verify'"
              + " (not -Dkiln.shade.skip=true)"));
    }
    try (JarFile j = new JarFile(jar.toFile())) {
      entries = Collections.list(j.entries()).stream().map(ZipEntry::getName).toList();
    }
    System.out.printf("job jar %s: %.1f MB, %d entries (kiln.jar.models=%s, kiln.jar.natives=%s)%n",
        jar.getFileName(), Files.size(jar) / 1e6, entries.size(), System.getProperty("kiln.jar.models"),
        System.getProperty("kiln.jar.natives"));
  }

  static boolean none(String property) {
    return "none".equals(System.getProperty(property));
  }

  @Test
  void theCudaPatternRecognisesCudaLibraries() {
    // So that the next test cannot pass because the pattern matches nothing.
    for (String name : List.of("libcudart.so.12", "lib/libcublasLt.so.12.8.4", "libonnxruntime_providers_cuda.so",
        "pytorch/cu128/linux-x86_64/libtorch_cuda.so", "native/libcudnn_ops.so.9", "cudart64_12.dll")) {
      assertTrue(CUDA.matcher(name).find(), name);
    }
    assertFalse(CUDA.matcher("ai/onnxruntime/native/linux-x64/libonnxruntime.so").find());
  }

  @Test
  void neverBundlesCudaNatives() {
    List<String> cuda = entries.stream().filter(e -> CUDA.matcher(e).find()).toList();
    assertEquals(List.of(), cuda, "CUDA natives belong in the TaskManager image");
  }

  @Test
  void holdsTheJobAndNoOtherPlatformsTokenizerNatives() {
    assertTrue(entries.contains("dev/kiln/jobs/BuildJob.class"));
    assertTrue(entries.stream().noneMatch(e -> e.matches("native/lib/(osx|win)-.*")),
        "Flink clusters run on Linux");
  }

  @Test
  void bundlesTheModelsUnlessToldNotTo() {
    boolean models = entries.contains("all-minilm-l6-v2-q.onnx");
    assertEquals(!none("kiln.jar.models"), models, "kiln.jar.models=" + System.getProperty("kiln.jar.models"));
    if (none("kiln.jar.models")) {
      assertTrue(entries.stream().noneMatch(e -> e.endsWith(".onnx") && !e.contains("/")), "no bundled model file");
    }
  }

  @Test
  void bundlesTheEngineNativesUnlessToldNotTo() {
    boolean ort = entries.stream().anyMatch(e -> e.startsWith("ai/onnxruntime/native/linux-x64/"));
    boolean torch = entries.stream().anyMatch(e -> e.startsWith("pytorch/"));
    assertEquals(!none("kiln.jar.natives"), ort, "ONNX Runtime natives");
    if (none("kiln.jar.natives")) {
      assertFalse(torch, "PyTorch natives");
      assertTrue(entries.stream().noneMatch(e -> e.startsWith("ai/onnxruntime/")), "ONNX Runtime's Java API too");
    }
  }

  /**
   * {@code target/flink-lib/}, what a TaskManager's {@code lib/} gets for several builds (docs/DEPLOYMENT.md,
   * "Several builds on one TaskManager"): DJL's API, tokenizers and ONNX Runtime engine, ONNX Runtime, and
   * DJL's Gson and JNA, nothing else; its DJL is the job jar's own (TaskManagers refuse another version).
   */
  @Test
  void flinkLibHoldsDjlAndOnnxRuntimeInTheJobJarsVersions() throws IOException {
    List<String> names;
    try (Stream<Path> s = Files.list(Path.of("target", "flink-lib"))) {
      names = s.map(p -> p.getFileName().toString().replaceFirst("-[0-9][^-]*(-[0-9][^-]*)?\\.jar$", "")).sorted()
          .toList();
    }
    assertTrue(List.of("api", "gson", "jna", "onnxruntime", "onnxruntime-engine", "tokenizers").equals(names)
        || List.of("api", "gson", "jna", "onnxruntime-engine", "onnxruntime_gpu", "tokenizers").equals(names), names.toString());
    Path api;
    try (Stream<Path> s = Files.list(Path.of("target", "flink-lib"))) {
      api = s.filter(p -> p.getFileName().toString().matches("api-[0-9].*\\.jar")).findFirst().orElseThrow();
    }
    try (JarFile lib = new JarFile(api.toFile()); JarFile job = new JarFile(jar.toFile())) {
      String properties = "ai/djl/engine/api.properties";
      assertEquals(new String(job.getInputStream(job.getEntry(properties)).readAllBytes(), StandardCharsets.UTF_8),
          new String(lib.getInputStream(lib.getEntry(properties)).readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  /**
   * PDF and Office extraction needs PDFBox, POI and their dependencies in the jar: only log4j-api, which
   * Flink's lib/ provides (parent-first), comes from outside. The readers run in a class loader that
   * sees nothing else.
   */
  @Test
  void extractsPdfDocxAndPptxWithNothingButTheJarAndLog4jApi(@TempDir Path dir) throws Exception {
    Path pdf = DocumentFixtures.pdf(dir.resolve("a.pdf"), "T", "A", List.of("Kiln shelves need kiln wash."));
    Path docx = DocumentFixtures.docx(dir.resolve("b.docx"), "T", "A", "# Glazes", "Celadon is a green glaze.");
    Path pptx = DocumentFixtures.pptx(dir.resolve("c.pptx"), "T", "A", "Raku", "Pots leave the kiln red hot.");
    URL log4jApi = LogManager.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader flinkLib = new URLClassLoader(new URL[] {log4jApi}, ClassLoader.getPlatformClassLoader());
        URLClassLoader job = new URLClassLoader(new URL[] {jar.toUri().toURL()}, flinkLib)) {
      assertTrue(extract(job, "PdfReader", pdf).contains("Kiln shelves need kiln wash."));
      assertTrue(extract(job, "DocxReader", docx).contains("<h1>Glazes</h1>"));
      assertTrue(extract(job, "PptxReader", pptx).contains("Slide 1: Raku"));
    }
  }

  private static String extract(ClassLoader loader, String reader, Path file) throws Exception {
    Class<?> documentClass = Class.forName("dev.kiln.ingest.ExtractedDocument", true, loader);
    assertEquals(loader, documentClass.getClassLoader(), "the jar's copy, not the test's");
    Constructor<?> newDocument = documentClass.getDeclaredConstructor(long.class);
    newDocument.setAccessible(true);
    Object document = newDocument.newInstance(1L << 20);
    Constructor<?> newReader = Class.forName("dev.kiln.ingest." + reader, true, loader).getDeclaredConstructor();
    newReader.setAccessible(true);
    Object r = newReader.newInstance();
    Method read = r.getClass().getMethod("read", File.class, documentClass);
    read.setAccessible(true);
    read.invoke(r, file.toFile(), document);
    Method payload = documentClass.getDeclaredMethod("toPayload");
    payload.setAccessible(true);
    return (String) payload.invoke(document);
  }
}
