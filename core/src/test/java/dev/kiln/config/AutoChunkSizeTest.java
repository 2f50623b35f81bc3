package dev.kiln.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.ContentKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AutoChunkSizeTest {
  @TempDir Path dir;

  private BuildConfig load(String yaml) throws Exception {
    Path f = dir.resolve("c.yaml");
    Files.writeString(f, "corpus: [a]\n" + yaml);
    return BuildConfig.load(f).validate();
  }

  @Test
  void sizeAndOverlapDefaultToAutoAndReadAndPrintAsTheWord() throws Exception {
    assertEquals(AutoTokens.AUTO, new BuildConfig().chunker.size);
    BuildConfig c = load("chunker:\n  size: AUTO\n  overlap: auto\n");
    assertTrue(c.chunker.unresolved());
    List<String> lines = c.describe();
    assertTrue(lines.contains("+ chunker.size: auto") && lines.contains("+ chunker.overlap: auto"), lines.toString());
    BuildConfig fixed = load("chunker:\n  size: 300\n  overlap: 40\n");
    assertEquals(300, fixed.chunker.size);
    assertFalse(fixed.chunker.unresolved());
    assertTrue(fixed.describe().contains("+ chunker.size: 300"));
  }

  @Test
  void autoFollowsTheModelsRecommendation() {
    ChunkerConfig c = new ChunkerConfig();
    c.resolveAuto(480, 64, "bge");
    assertEquals(480, c.size);
    assertEquals(64, c.overlap);
    assertFalse(c.unresolved());
  }

  @Test
  void withoutARecommendationAutoIsTheGenericDefault() {
    ChunkerConfig c = new ChunkerConfig();
    assertEquals(ChunkerConfig.DEFAULT_SIZE, c.effectiveSize(), "a chunker never cuts at 'auto'");
    c.resolveAuto(null, null, "minilm");
    assertEquals(200, c.size);
    assertEquals(32, c.overlap);
  }

  @Test
  void anExplicitSizeWinsAndTakesTheGenericOverlap() {
    ChunkerConfig c = new ChunkerConfig();
    c.size = 300;
    c.resolveAuto(480, 64, "bge");
    assertEquals(300, c.size, "explicit size wins over the model");
    assertEquals(ChunkerConfig.DEFAULT_OVERLAP, c.overlap, "the model's overlap belongs to its own size");
    ChunkerConfig o = new ChunkerConfig();
    o.overlap = 10;
    o.resolveAuto(480, 64, "bge");
    assertEquals(480, o.size);
    assertEquals(10, o.overlap, "explicit overlap wins over the model");
  }

  @Test
  void anOverlapThatDoesNotFitTheResolvedSizeNamesTheModel() {
    ChunkerConfig c = new ChunkerConfig();
    c.overlap = 300;
    c.validate();   // still auto: checked once the size is known
    ConfigException e = assertThrows(ConfigException.class, () -> c.resolveAuto(256, 32, "my-model"));
    assertTrue(e.getMessage().contains("chunker.overlap") && e.getMessage().contains("auto = 256")
        && e.getMessage().contains("my-model"), e.getMessage());
  }

  @Test
  void nonsenseSizesAreErrorsNamingTheKey() throws Exception {
    ConfigException e = assertThrows(ConfigException.class, () -> load("chunker:\n  size: big\n"));
    assertTrue(e.getMessage().contains("chunker.size") && e.getMessage().contains("auto"), e.getMessage());
    e = assertThrows(ConfigException.class, () -> load("chunker:\n  size: 4\n"));
    assertTrue(e.getMessage().contains("chunker.size must be at least 8 tokens or auto"), e.getMessage());
    e = assertThrows(ConfigException.class, () -> load("chunker:\n  overlap: -3\n"));
    assertTrue(e.getMessage().contains("chunker.overlap"), e.getMessage());
  }

  @Test
  void setTakesAutoOrANumberAndNothingElse() {
    BuildConfig fixed = new BuildConfig();
    fixed.chunker.size = 300;
    BuildConfig c = ConfigOverrides.of(BuildConfig.class).parse(List.of("chunker.size=auto")).applyTo(fixed);
    assertEquals(AutoTokens.AUTO, c.chunker.size);
    c = ConfigOverrides.of(BuildConfig.class).parse(List.of("chunker.size=480", "chunker.overlap=64"))
        .applyTo(new BuildConfig());
    assertEquals(480, c.chunker.size);
    assertEquals(64, c.chunker.overlap);
    ConfigException e = assertThrows(ConfigException.class,
        () -> ConfigOverrides.of(BuildConfig.class).parse(List.of("chunker.size=large")).applyTo(new BuildConfig()));
    assertEquals("--set chunker.size=large: 'chunker.size' takes a whole number of tokens or auto, not 'large'",
        e.getMessage());
  }

  @Test
  void aResolvedAutoSizeFingerprintsLikeTheSameNumbersWrittenOut() {
    // Content keys (and with them vector reuse) must not tell 'auto → 200/32' from '200/32'.
    ChunkerConfig auto = new ChunkerConfig();
    auto.resolveAuto(null, null, "m");
    ChunkerConfig written = new ChunkerConfig();
    written.size = 200;
    written.overlap = 32;
    assertEquals(ContentKey.settingsFingerprint(written, "m"), ContentKey.settingsFingerprint(auto, "m"));
  }
}
