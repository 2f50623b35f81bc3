package dev.kiln.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ConfigOverrides}: {@code --set key=value} over any key of a typed YAML config. */
class ConfigOverridesTest {
  private static BuildConfig set(BuildConfig config, String... keyValues) {
    return ConfigOverrides.of(BuildConfig.class).parse(List.of(keyValues)).applyTo(config);
  }

  private static String error(String... keyValues) {
    return assertThrows(ConfigException.class, () -> set(new BuildConfig(), keyValues)).getMessage();
  }

  @Test
  void scalarsOfEveryTypeInNestedSections() {
    BuildConfig c = set(new BuildConfig(), "index.hnsw-m=32", "embed.batch-size=8", "ingest.max-bad-fraction=0.25",
        "index.bm25-k1=1.2", "ingest.split-bytes=8589934592", "embed.reuse=false", "chunker.parents.enabled=TRUE",
        "chunker.strategy=window", "ingest.quarantine-dir=", "shards=5");
    assertEquals(32, c.index.hnswM);
    assertEquals(8, c.embed.batchSize);
    assertEquals(0.25, c.ingest.maxBadFraction);
    assertEquals(1.2f, c.index.bm25K1);
    assertEquals(8589934592L, c.ingest.splitBytes);
    assertEquals(false, c.embed.reuse);
    assertEquals(true, c.chunker.parents.enabled);
    assertEquals("window", c.chunker.strategy);
    assertEquals("", c.ingest.quarantineDir);
    assertEquals(5, c.shards);
  }

  @Test
  void textIsTakenAsWrittenIncludingEqualsSignsAndSpaces() {
    BuildConfig c = set(new BuildConfig(), "ingest.title-field=a=b", "embed.model= /models/my model");
    assertEquals("a=b", c.ingest.titleField);
    assertEquals(" /models/my model", c.embed.model);
  }

  @Test
  void listsByFlowSyntaxOrByRepeatingTheKey() {
    BuildConfig loaded = new BuildConfig();
    assertEquals(List.of("docs"), loaded.corpus);
    assertEquals(List.of("a", "b"), set(loaded, "corpus=[a, b]").corpus);
    // The first assignment replaces the file's list; later ones append.
    assertEquals(List.of("x", "y"), set(loaded, "corpus=x", "corpus=y").corpus);
    assertEquals(List.of(), set(loaded, "ingest.path-patterns=[]").ingest.pathPatterns);
    // A regular expression with commas and braces, one element: the flow syntax is only for a leading '['.
    assertEquals(List.of("^(?<tenant>[^/]{1,8})/"),
        set(loaded, "ingest.path-patterns=^(?<tenant>[^/]{1,8})/").ingest.pathPatterns);
    assertEquals(List.of("docs"), loaded.corpus, "the loaded config is left as it was");
  }

  @Test
  void mapEntriesKeepTheDotsOfTheirNames() {
    BuildConfig c = set(new BuildConfig(), "filesystem.s3.endpoint=http://127.0.0.1:9000",
        "filesystem.s3.path.style.access=true", "ingest.metadata-fields.tenant=customer",
        "changelog.properties.security.protocol=SSL");
    assertEquals(Map.of("s3.endpoint", "http://127.0.0.1:9000", "s3.path.style.access", "true"), c.filesystem);
    assertEquals("customer", c.ingest.metadataFields.get("tenant"));
    assertEquals("doc_type", c.ingest.metadataFields.get("doc_type"), "other entries stay");
    assertEquals(Map.of("security.protocol", "SSL"), c.changelog.properties);
    assertEquals(Map.of("lang", "language"), set(c, "ingest.metadata-fields={lang: language}").ingest.metadataFields);
    assertEquals(Map.of(), set(c, "filesystem={}").filesystem);
  }

  @Test
  void laterAssignmentsWinAndTypedOptionValuesTakeTheSamePath() {
    BuildConfig c = ConfigOverrides.of(BuildConfig.class).parse(List.of("shards=3", "shards=4"))
        .set("shards", 7, "--shards").set("parallelism", null, "--parallelism")
        .set("corpus", List.of("p", "q"), "--corpus").applyTo(new BuildConfig());
    assertEquals(7, c.shards);
    assertEquals(2, c.parallelism, "an unset option changes nothing");
    assertEquals(List.of("p", "q"), c.corpus);
  }

  @Test
  void unknownKeysAreNamedWithTheKnownOnes() {
    String top = error("shardz=3");
    assertTrue(top.contains("--set shardz: unknown key 'shardz'") && top.contains("shards"), top);
    String nested = error("index.hnsw-mm=3");
    assertTrue(nested.contains("'hnsw-mm' is not a key of 'index'") && nested.contains("hnsw-m,"), nested);
    assertTrue(error("index=3").contains("'index' is a section; set one of its keys: [index.analyzer"), error("index=3"));
    assertTrue(error("shards.count=3").contains("'shards' is a value, not a section"), error("shards.count=3"));
    assertTrue(error("filesystem.=x").contains("names no entry of the map 'filesystem'"), error("filesystem.=x"));
    assertTrue(error("filesystem=x").contains("'filesystem' is a map"), error("filesystem=x"));
    assertTrue(error("shards").contains("expected KEY=VALUE"), error("shards"));
    assertTrue(error("=3").contains("expected KEY=VALUE"), error("=3"));
  }

  @Test
  void valuesThatDoNotParseAreNamedWithTheirKey() {
    assertEquals("--set index.hnsw-m=abc: 'index.hnsw-m' takes a whole number, not 'abc'", error("index.hnsw-m=abc"));
    assertTrue(error("shards=3.5").contains("takes a whole number"), error("shards=3.5"));
    assertTrue(error("shards=").contains("takes a whole number"), error("shards="));
    assertTrue(error("shards=99999999999").contains("within"), error("shards=99999999999"));
    assertTrue(error("ingest.max-bad-fraction=lots").contains("takes a number"), error("ingest.max-bad-fraction=lots"));
    assertTrue(error("ingest.max-bad-fraction=NaN").contains("takes a number"), error("ingest.max-bad-fraction=NaN"));
    assertTrue(error("publish=yes").contains("'publish' takes true or false, not 'yes'"), error("publish=yes"));
    assertTrue(error("corpus=[a, b").contains("not a YAML flow list"), error("corpus=[a, b"));
  }

  @Test
  void rangesAreLeftToValidateWhichNamesTheKeyToo() {
    BuildConfig c = set(new BuildConfig(), "index.hnsw-m=1");
    ConfigException e = assertThrows(ConfigException.class, c::validate);
    assertTrue(e.getMessage().startsWith("index.hnsw-m must be in 2..512"), e.getMessage());
  }

  @Test
  void theEffectiveConfigLogShowsOverriddenValuesAndMasksSecrets() {
    BuildConfig c = set(new BuildConfig(), "index.hnsw-m=48", "filesystem.s3.secret-key=hunter2",
        "changelog.properties.sasl.jaas.config=user pass");
    String log = String.join("\n", c.describe());
    assertTrue(log.contains("+ index.hnsw-m: 48"), log);
    assertTrue(log.contains("+ filesystem.s3.secret-key: ****"), log);
    assertTrue(log.contains("+ changelog.properties.sasl.jaas.config: ****"), log);
    assertTrue(!log.contains("hunter2") && !log.contains("user pass"), log);
  }

  @Test
  void noAssignmentsGiveTheSameConfig() {
    BuildConfig file = BuildConfig.load(Path.of("..", "configs", "build.yaml"));
    assertEquals(file.describe(), ConfigOverrides.of(BuildConfig.class).applyTo(file).describe());
  }
}
