package dev.kiln.embed;

import dev.kiln.snapshot.Checksums;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a model's files are on disk. Bundled models are copied out of their carrier jar into a local
 * cache directory, because ONNX Runtime, PyTorch and the tokenizer load from paths; copies are written
 * to a temporary name and moved into place, so concurrent slots never read a half-written model.
 * Custom models are used where they are.
 */
public final class ModelFiles {
  private static final Map<String, String> FINGERPRINTS = new ConcurrentHashMap<>();

  private ModelFiles() {}

  /** Kiln's cache directory: {@code -Dkiln.cache.dir}, else {@code kiln-data/cache} under the working dir. */
  public static Path cacheDir() {
    return Path.of(System.getProperty("kiln.cache.dir", "kiln-data/cache")).toAbsolutePath();
  }

  public static synchronized Path materialize(ModelSpec spec, String resource) throws IOException {
    if (spec.isCustom()) {
      Path file = Path.of(spec.directory()).resolve(resource);
      if (!Files.isRegularFile(file)) {
        throw new IOException("model file " + file + " of " + spec.name() + " is missing");
      }
      return file;
    }
    Path dir = cacheDir().resolve("models").resolve(spec.name());
    Path target = dir.resolve(resource);
    ClassLoader cl = ModelFiles.class.getClassLoader();
    var url = cl.getResource(resource);
    if (url == null) {
      throw new IOException("model resource '" + resource + "' of " + spec.name()
          + " is not on the classpath: its carrier jar is missing (a job jar built with -Dkiln.jar.models=none"
          + " needs the langchain4j-embeddings-* jars in Flink's lib/ on the client and every TaskManager,"
          + " or a model directory: docs/DEPLOYMENT.md)");
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

  /**
   * The model's fingerprint: SHA-256 over the model file, the tokenizer and every setting that changes
   * a passage vector (engine, pooling, normalisation, maximum length, passage prefix). Two models with
   * one fingerprint make the same vectors; stored vectors are reused only under an equal fingerprint.
   * Computed once per model file per JVM.
   */
  public static String fingerprint(ModelSpec spec) {
    try {
      Path model = materialize(spec, spec.modelResource());
      Path tokenizer = materialize(spec, spec.tokenizerResource());
      String cacheKey = model + "|" + Files.size(model) + "|" + Files.getLastModifiedTime(model) + "|"
          + tokenizer + "|" + Files.getLastModifiedTime(tokenizer) + "|" + spec;
      return FINGERPRINTS.computeIfAbsent(cacheKey, k -> {
        MessageDigest md = Checksums.newDigest();
        md.update(fileSha256(model));
        md.update(fileSha256(tokenizer));
        String settings = spec.engine() + "|" + spec.pooling() + "|" + spec.normalize() + "|" + spec.maxTokens()
            + "|" + spec.passagePrefix() + "|" + spec.dimension();
        md.update(settings.getBytes(StandardCharsets.UTF_8));
        return "sha256:" + HexFormat.of().formatHex(md.digest());
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot fingerprint model " + spec.name(), e);
    }
  }

  private static byte[] fileSha256(Path file) {
    try {
      return HexFormat.of().parseHex(Checksums.sha256(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
