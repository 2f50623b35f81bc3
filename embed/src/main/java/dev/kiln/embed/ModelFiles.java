package dev.kiln.embed;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Copies a bundled model's files out of their carrier jar into a local cache directory, because
 * ONNX Runtime and the tokenizer load from paths. Copies are written to a temporary name and moved
 * into place, so concurrent slots never read a half-written model.
 */
public final class ModelFiles {
  private ModelFiles() {}

  /** Kiln's cache directory: {@code -Dkiln.cache.dir}, else {@code kiln-data/cache} under the working dir. */
  public static Path cacheDir() {
    return Path.of(System.getProperty("kiln.cache.dir", "kiln-data/cache")).toAbsolutePath();
  }

  public static synchronized Path materialize(ModelSpec spec, String resource) throws IOException {
    Path dir = cacheDir().resolve("models").resolve(spec.name());
    Path target = dir.resolve(resource);
    ClassLoader cl = ModelFiles.class.getClassLoader();
    var url = cl.getResource(resource);
    if (url == null) {
      throw new IOException("model resource '" + resource + "' of " + spec.name()
          + " is not on the classpath: its carrier jar is missing");
    }
    long expected = url.openConnection().getContentLengthLong();
    if (Files.isRegularFile(target) && (expected < 0 || Files.size(target) == expected)) {
      return target;
    }
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, resource, ".part");
    try (InputStream in = url.openStream()) {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return target;
  }
}
