package dev.kiln.testing.gpu;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.externalresource.ExternalResourceDriverFactory;

/**
 * Writes a Flink plugins directory holding {@link TestGpuDriverFactory} as a plugin jar
 * ({@code <dir>/test-gpu/test-gpu.jar}: this package's classes and the factory's service entry), for a
 * TaskManager started with {@code FLINK_PLUGINS_DIR} there. Flink loads a plugin in its own class loader,
 * as it would the GPU driver of a distribution's {@code plugins/}.
 */
public final class TestGpuPlugin {
  private TestGpuPlugin() {}

  /** The plugins directory {@code dir} (created), with the test GPU driver in it; returns {@code dir}. */
  public static Path write(Path dir) throws IOException {
    Path classes;
    try {
      classes = Path.of(TestGpuDriverFactory.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    String pkg = TestGpuDriverFactory.class.getPackageName().replace('.', '/');
    Path jar = Files.createDirectories(dir.resolve("test-gpu")).resolve("test-gpu.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.list(classes.resolve(pkg))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
        out.putNextEntry(new JarEntry(pkg + "/" + f.getFileName()));
        Files.copy(f, out);
        out.closeEntry();
      }
      out.putNextEntry(new JarEntry("META-INF/services/" + ExternalResourceDriverFactory.class.getName()));
      OutputStream entry = out;
      entry.write((TestGpuDriverFactory.class.getName() + "\n").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return dir;
  }
}
