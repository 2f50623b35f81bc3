package dev.kiln.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildConfigTest {
  @TempDir Path dir;

  private Path yaml(String text) throws Exception {
    Path f = dir.resolve("c.yaml");
    Files.writeString(f, text);
    return f;
  }

  @Test
  void loadsKebabCaseKeysAndKeepsDefaultsForTheRest() throws Exception {
    BuildConfig c = BuildConfig.load(yaml("corpus: [a, b]\nshards: 3\nchunker:\n  size: 100\nindex:\n  hnsw-m: 32\n"));
    assertEquals(List.of("a", "b"), c.corpus);
    assertEquals(3, c.shards);
    assertEquals(100, c.chunker.size);
    assertEquals(AutoTokens.AUTO, c.chunker.overlap, "the overlap keeps its default, auto");
    assertEquals(32, c.index.hnswM);
    assertEquals(100, c.index.hnswBeamWidth);
    c.validate();
  }

  @Test
  void unknownKeyNamesTheKey() throws Exception {
    ConfigException e = assertThrows(ConfigException.class, () -> BuildConfig.load(yaml("chunker:\n  sise: 100\n")));
    assertTrue(e.getMessage().contains("'sise'"), e.getMessage());
  }

  @Test
  void validationNamesTheSettingToFix() {
    BuildConfig c = new BuildConfig();
    c.chunker.overlap = 500;
    // Against an auto size the overlap is checked once the model has named the size.
    ChunkerConfig auto = c.validate().chunker;
    assertTrue(assertThrows(ConfigException.class, () -> auto.resolveAuto(null, null, "m")).getMessage()
        .contains("chunker.overlap"));
    c = new BuildConfig();
    c.chunker.size = 200;
    c.chunker.overlap = 500;
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("chunker.overlap"));
    c = new BuildConfig();
    c.shards = 0;
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("shards"));
    c = new BuildConfig();
    c.format = "xml";
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("unknown format 'xml'"));
    c = new BuildConfig();
    c.concurrentBuilds = "queue";
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage()
        .contains("concurrent-builds must be 'refuse', 'wait' or 'allow', was 'queue'"));
    c = new BuildConfig();
    c.progressIntervalMs = 0;
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("progress-interval-ms"));
  }

  @Test
  void missingFileIsAConfigError() {
    assertThrows(ConfigException.class, () -> BuildConfig.load(dir.resolve("nope.yaml")));
  }

  @Test
  void describeListsEveryEffectiveSetting() {
    List<String> lines = new BuildConfig().describe();
    assertTrue(lines.contains("+ shards: 2"), lines.toString());
    assertTrue(lines.contains("+ chunker.size: auto"), lines.toString());
    assertTrue(lines.contains("+ embed.model: all-minilm-l6-v2-q"), lines.toString());
  }

  @Test
  void bundledDefaultConfigIsValid() {
    Path repoConfig = Path.of("..", "configs", "build.yaml");
    BuildConfig c = BuildConfig.load(repoConfig).validate();
    assertEquals(List.of("docs"), c.corpus);
    IngestConfig defaults = new IngestConfig();
    assertEquals(defaults.maxRecordBytes, c.ingest.maxRecordBytes);
    assertEquals(defaults.maxBadFraction, c.ingest.maxBadFraction);
    assertEquals(defaults.splitBytes, c.ingest.splitBytes);
    assertEquals(defaults.maxSpoolBytes, c.ingest.maxSpoolBytes);
    assertEquals(defaults.metadataFields, c.ingest.metadataFields);
  }

  @Test
  void ingestSettingsAreCheckedByName() throws Exception {
    BuildConfig c = BuildConfig.load(yaml("ingest:\n  max-bad-fraction: 0.2\n  path-patterns: ['^(?<tenant>[^/]+)/']\n"));
    assertEquals(0.2, c.ingest.maxBadFraction);
    c.validate();
    c.ingest.maxBadFraction = 1.5;
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("ingest.max-bad-fraction"));
    c.ingest.maxBadFraction = 0.1;
    c.ingest.pathPatterns = List.of("(?<broken");
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("ingest.path-patterns"));
  }

  @Test
  void maxSpoolBytesIsReadByNameAndMustBePositive() throws Exception {
    BuildConfig c = BuildConfig.load(yaml("ingest:\n  max-spool-bytes: 1048576\n"));
    assertEquals(1L << 20, c.ingest.maxSpoolBytes);
    assertTrue(c.describe().contains("+ ingest.max-spool-bytes: 1048576"), c.describe().toString());
    c.ingest.maxSpoolBytes = 0;
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("ingest.max-spool-bytes"));
  }

  @Test
  void maxDocumentMillisIsReadByNameAndMustBePositive() throws Exception {
    assertEquals(30_000, new IngestConfig().maxDocumentMillis, "the default");
    BuildConfig c = BuildConfig.load(yaml("ingest:\n  max-document-millis: 5000\n"));
    assertEquals(5_000, c.ingest.maxDocumentMillis);
    assertTrue(c.describe().contains("+ ingest.max-document-millis: 5000"), c.describe().toString());
    c.ingest.maxDocumentMillis = 0;
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("ingest.max-document-millis"));
  }

  @Test
  void autoBatchSizeIsOneOnCpuAndLargerOnGpu() {
    EmbedConfig embed = new EmbedConfig();
    assertEquals(0, embed.batchSize);
    assertEquals(1, embed.effectiveBatchSize(false));
    assertEquals(EmbedConfig.AUTO_GPU_BATCH, embed.effectiveBatchSize(true));
    embed.batchSize = 8;
    assertEquals(8, embed.effectiveBatchSize(false));
    embed.batchSize = -1;
    ConfigException e = assertThrows(ConfigException.class, embed::validate);
    assertTrue(e.getMessage().contains("embed.batch-size"), e.getMessage());
  }

  @Test
  void cloudCredentialsOfEveryStoreAreSecretAndOrdinarySettingsAreNot() throws Exception {
    for (String key : List.of("fs.azure.account.key.acct.blob.core.windows.net",
        "flink.hadoop.fs.azure.account.key.acct.dfs.core.windows.net", "fs.azure.sas.container.acct.blob.core.windows.net",
        "fs.azure.sas.token.provider.type", "fs.azure.account.oauth2.client.secret", "gs.auth.service.account.credentials",
        "fs.gs.auth.access.token", "ssl.key.password", "sasl.jaas.config", "s3.secret-key", "s3.access-key",
        "Azure.SAS_Token", "presto.s3.credentials-provider")) {
      assertTrue(BuildConfig.isSecret(key), key);
    }
    for (String key : List.of("s3.endpoint", "s3.path.style.access", "sasl.mechanism", "chunker.hard-cap",
        "flink.hadoop.dfs.replication", "fs.azure.account.auth.type", "ingest.id-field")) {
      assertFalse(BuildConfig.isSecret(key), key);
    }
    Path yaml = dir.resolve("azure.yaml");
    Files.writeString(yaml, "filesystem:\n  fs.azure.account.key.acct.blob.core.windows.net: AZKEY123\n"
        + "  fs.azure.sas.docs.acct.blob.core.windows.net: 'sv=2024&sig=SASSIG'\n  s3.endpoint: http://e\n");
    String log = String.join("\n", BuildConfig.load(yaml).describe());
    assertFalse(log.contains("AZKEY123") || log.contains("SASSIG"), log);
    assertTrue(log.contains("+ filesystem.fs.azure.account.key.acct.blob.core.windows.net: ****"), log);
    assertTrue(log.contains("+ filesystem.s3.endpoint: http://e"), log);
  }

  @Test
  void rangeFieldsAreTypedAndCheckedByName() throws Exception {
    BuildConfig c = BuildConfig.load(yaml("index:\n  range-fields: {version: long, price: DOUBLE, modified: date}\n"));
    c.validate();
    assertEquals(List.of("modified", "price", "version"), List.copyOf(c.index.rangeTypes().keySet()));
    assertEquals(RangeType.DOUBLE, c.index.rangeTypes().get("price"));
    c.index.rangeFields.put("size", "int");
    ConfigException e = assertThrows(ConfigException.class, c::validate);
    assertTrue(e.getMessage().contains("index.range-fields.size must be one of long|double|date"), e.getMessage());
    c.index.rangeFields.remove("size");
    c.index.rangeFields.put("bad key", "long");
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("index.range-fields: key"));
  }

  @Test
  void changelogFormatIsOneOfThree() throws Exception {
    BuildConfig c = BuildConfig.load(yaml("changelog:\n  format: debezium\n  soft-delete-field: deleted\n"
        + "  id-field: slug\n"));
    c.validate();
    assertEquals("deleted", c.changelog.softDeleteField);
    c.changelog.format = "maxwell";
    assertTrue(assertThrows(ConfigException.class, c::validate).getMessage().contains("--changelog-format"));
  }
}
