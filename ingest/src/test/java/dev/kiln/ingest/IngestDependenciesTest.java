package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The format readers are plain libraries: no Flink on the module's runtime class path, declared or
 * brought in by anything it declares. Reads the class path the build wrote for it (maven-dependency-plugin's
 * {@code build-classpath}, {@code target/runtime-classpath.txt}), so a new dependency that drags Flink in
 * fails here, naming the jar.
 */
class IngestDependenciesTest {
  private static List<String> runtimeClasspath() throws Exception {
    String file = System.getProperty("kiln.ingest.runtime-classpath", "target/runtime-classpath.txt");
    String cp = Files.readString(Path.of(file)).strip();
    return Arrays.stream(cp.split(File.pathSeparator)).filter(s -> !s.isBlank()).toList();
  }

  @Test
  void noFlinkArtifactIsOnTheRuntimeClasspath() throws Exception {
    List<String> cp = runtimeClasspath();
    // The file is the one written for this module: the readers' own libraries are on it.
    for (String needed : List.of("/org/apache/parquet/", "/org/apache/pdfbox/", "/org/apache/poi/")) {
      assertTrue(cp.stream().anyMatch(e -> e.replace('\\', '/').contains(needed)),
          "expected " + needed + " on the runtime class path: " + cp);
    }
    List<String> flink = cp.stream()
        .filter(e -> e.replace('\\', '/').contains("/org/apache/flink/") || new File(e).getName().startsWith("flink-"))
        .toList();
    assertTrue(flink.isEmpty(), "Flink on kiln-ingest's runtime class path: " + flink);
  }
}
