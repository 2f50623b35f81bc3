package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.RemoteSnapshotRoots;
import dev.kiln.snapshot.SnapshotException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an application that embeds the searcher gets: Lucene, the embedder and the snapshot format, and
 * no HTTP server, no Hadoop client, no AWS SDK and no Flink. Remote roots are the optional
 * {@code kiln-storage}'s, the HTTP service is {@code kiln-server}'s. The runtime classpath is the one
 * Maven resolved for this module ({@code target/runtime-classpath.txt}, written before the tests).
 */
class SearcherDependenciesTest {
  /** Maven repository directories (group ids) and reactor modules an embedding application must not get. */
  private static final Map<String, String> FORBIDDEN = Map.of(
      "/org/eclipse/jetty/", "Jetty (the HTTP service is kiln-server's)",
      "/org/apache/hadoop/", "the Hadoop client (hdfs:// roots are kiln-storage's)",
      "/software/amazon/awssdk/", "the AWS SDK (s3:// roots are kiln-storage's)",
      "/org/apache/flink/", "Flink",
      "/dev/kiln/kiln-storage/", "kiln-storage (remote roots are optional)",
      "/storage/target/classes", "kiln-storage (remote roots are optional)");

  @Test
  void theRuntimeClasspathHoldsNoServerNoHadoopNoAwsSdkAndNoFlink() throws Exception {
    List<String> entries = runtimeClasspath();
    assertTrue(entries.stream().anyMatch(e -> e.contains("lucene-core")), "the file lists the classpath: " + entries);
    assertTrue(entries.stream().anyMatch(e -> e.contains("kiln-core") || e.endsWith("/core/target/classes")),
        "the file lists the kiln modules too: " + entries);
    List<String> offending = entries.stream()
        .filter(e -> FORBIDDEN.keySet().stream().anyMatch(e::contains))
        .map(e -> name(e) + " (" + FORBIDDEN.entrySet().stream()
            .filter(f -> e.contains(f.getKey())).findFirst().orElseThrow().getValue() + ")")
        .toList();
    assertEquals(List.of(), offending, "kiln-searcher's runtime classpath");
  }

  @Test
  void aRemoteRootWithoutKilnStorageIsRefusedNamingTheModule() {
    assertFalse(RemoteSnapshotRoots.installed().isPresent(), "kiln-storage is not on the searcher's test classpath");
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> Searcher.builder().root("s3://bucket/snapshots").build());
    assertEquals("cannot read the snapshots root s3://bucket/snapshots: remote roots need dev.kiln:kiln-storage"
        + " on the classpath", e.getMessage());
  }

  /** A jar's file name; a reactor module's classes directory as {@code module/target/classes}. */
  private static String name(String entry) {
    Path p = Path.of(entry);
    return p.endsWith(Path.of("target", "classes")) ? p.getParent().getParent().getFileName() + "/target/classes"
        : p.getFileName().toString();
  }

  private static List<String> runtimeClasspath() throws Exception {
    String file = System.getProperty("kiln.searcher.runtime-classpath");
    assertTrue(file != null && Files.isRegularFile(Path.of(file)),
        "run through Maven: the build writes the runtime classpath to target/runtime-classpath.txt (" + file + ")");
    String text = Files.readString(Path.of(file)).strip();
    return Arrays.stream(text.split(File.pathSeparator))
        .map(e -> e.replace(File.separatorChar, '/'))
        .filter(e -> !e.isBlank())
        .toList();
  }
}
