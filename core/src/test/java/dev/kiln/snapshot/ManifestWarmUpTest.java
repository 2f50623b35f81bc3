package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ManifestWarmUpTest {
  @Test
  void theBundledSampleParsesSoTheWarmUpBindsEverySection() {
    assertTrue(ManifestWarmUp.run(), "the warm-up's sample manifest no longer parses: refresh it from the golden file");
  }

  @Test
  void theSampleIsTheFormatTwoGoldenManifest() throws IOException {
    // Kept identical, so that a format change that updates the golden file shows here too.
    try (InputStream in = ManifestWarmUp.class.getResourceAsStream(ManifestWarmUp.SAMPLE)) {
      assertArrayEquals(Files.readAllBytes(Path.of("src/test/resources/golden/format-v2/manifest-incremental.json")),
          in.readAllBytes());
    }
  }
}
