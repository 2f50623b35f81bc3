package dev.kiln.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangelogConfigTest {
  @TempDir Path dir;

  static BuildConfig changelog(String topic, String bootstrap) {
    BuildConfig c = new BuildConfig();
    c.changelog.topic = topic;
    c.changelog.bootstrap = bootstrap;
    return c;
  }

  static void fails(BuildConfig c, String expected) {
    ConfigException e = assertThrows(ConfigException.class, c::validate);
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void offByDefault() {
    assertFalse(new BuildConfig().validate().changelog.enabled());
  }

  @Test
  void aTopicNeedsABootstrapAndViceVersa() {
    fails(changelog("docs", ""), "--kafka-bootstrap");
    fails(changelog("", "127.0.0.1:9092"), "--changelog-topic");
    assertTrue(changelog("docs", "127.0.0.1:9092,kafka-2:9093").validate().changelog.enabled());
  }

  @Test
  void badValuesNameTheOption() {
    fails(changelog("docs", "localhost"), "--kafka-bootstrap");
    BuildConfig base = changelog("docs", "127.0.0.1:9092");
    base.changelog.baseSnapshot = "latest";
    fails(base, "--base-snapshot");
    BuildConfig timeout = changelog("docs", "127.0.0.1:9092");
    timeout.changelog.timeoutSeconds = 0;
    fails(timeout, "changelog.timeout-seconds");
  }

  @Test
  void yamlKeysAreStrict() throws Exception {
    Path ok = dir.resolve("ok.yaml");
    Files.writeString(ok, "changelog:\n  topic: docs\n  bootstrap: 127.0.0.1:9092\n  base-snapshot: current\n");
    BuildConfig c = BuildConfig.load(ok).validate();
    assertTrue(c.changelog.enabled());
    assertTrue(c.describe().contains("+ changelog.topic: docs"), c.describe().toString());
    Path typo = dir.resolve("typo.yaml");
    Files.writeString(typo, "changelog:\n  topik: docs\n");
    ConfigException e = assertThrows(ConfigException.class, () -> BuildConfig.load(typo));
    assertTrue(e.getMessage().contains("topik"), e.getMessage());
  }

  @Test
  void clientPropertiesLoadAreMaskedInTheLogAndCannotOverrideWhatKilnOwns() throws Exception {
    Path yaml = dir.resolve("sasl.yaml");
    Files.writeString(yaml, "changelog:\n  topic: docs\n  bootstrap: 127.0.0.1:9092\n  properties:\n"
        + "    security.protocol: SASL_SSL\n    sasl.mechanism: PLAIN\n"
        + "    sasl.jaas.config: \"PlainLoginModule required username='u' password='p';\"\n"
        + "filesystem:\n  s3.secret-key: hush\n");
    BuildConfig c = BuildConfig.load(yaml).validate();
    assertTrue(c.changelog.properties.get("security.protocol").equals("SASL_SSL"));
    String log = String.join("\n", c.describe());
    assertTrue(log.contains("+ changelog.properties.security.protocol: SASL_SSL"), log);
    assertTrue(log.contains("+ changelog.properties.sasl.jaas.config: ****"), log);
    assertTrue(log.contains("+ filesystem.s3.secret-key: ****"), log);
    assertFalse(log.contains("password='p'") || log.contains("hush"), log);

    BuildConfig group = changelog("docs", "127.0.0.1:9092");
    group.changelog.properties.put("group.id", "mine");
    fails(group, "changelog.properties.group.id");
  }
}
