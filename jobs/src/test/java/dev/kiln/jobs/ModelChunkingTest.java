package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelChunkingTest {
  private static BuildConfig config(String model) {
    BuildConfig c = new BuildConfig();
    c.embed.model = model;
    return c.validate();
  }

  @Test
  void theDefaultModelKeepsTheGenericSizeSoTheFastRegressionsDoNotMove() {
    BuildConfig c = config("all-minilm-l6-v2-q");
    ModelChunking.resolve(c);
    assertEquals(200, c.chunker.size);
    assertEquals(32, c.chunker.overlap);
    assertTrue(c.describe().contains("+ chunker.size: 200"), "the effective config logs the resolved size");
  }

  @Test
  void autoFollowsBgesMeasuredRecommendation() {
    BuildConfig c = config("bge-small-en-v15-q");
    assertEquals("bge-small-en-v15-q", ModelChunking.resolve(c).name());
    assertEquals(480, c.chunker.size);
    assertEquals(64, c.chunker.overlap);
  }

  @Test
  void anExplicitSizeWins() {
    BuildConfig c = config("bge-small-en-v15-q");
    c.chunker.size = 200;
    ModelChunking.resolve(c);
    assertEquals(200, c.chunker.size);
    assertEquals(32, c.chunker.overlap, "the model's 64 belongs to its 480");
    BuildConfig both = config("bge-small-en-v15-q");
    both.chunker.size = 128;
    both.chunker.overlap = 16;
    ModelChunking.resolve(both);
    assertEquals(128, both.chunker.size);
    assertEquals(16, both.chunker.overlap);
  }

  @Test
  void aCustomModelDirectoryRecommendsItsOwnSizeOrNone(@TempDir Path tmp) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("enc"));
    Files.writeString(dir.resolve("model.onnx"), "x");
    Files.writeString(dir.resolve("tokenizer.json"), "x");
    Files.writeString(dir.resolve("model.yaml"), "dimension: 8\nmax-tokens: 256\nchunk-size: 240\nchunk-overlap: 24\n");
    BuildConfig c = config(dir.toString());
    ModelChunking.resolve(c);
    assertEquals(240, c.chunker.size);
    assertEquals(24, c.chunker.overlap);
    Files.writeString(dir.resolve("model.yaml"), "dimension: 8\nmax-tokens: 256\n");
    BuildConfig none = config(dir.toString());
    ModelChunking.resolve(none);
    assertEquals(200, none.chunker.size);
    assertEquals(32, none.chunker.overlap);
  }

  @Test
  void aSizeTheModelRecommendsMustStillSuitTheRestOfTheConfig() {
    BuildConfig c = config("bge-small-en-v15-q");
    c.chunker.hardCap = 300;
    ConfigException e = assertThrows(ConfigException.class, () -> ModelChunking.resolve(c));
    assertTrue(e.getMessage().contains("chunker.hard-cap") && e.getMessage().contains("bge-small-en-v15-q"),
        e.getMessage());
  }
}
