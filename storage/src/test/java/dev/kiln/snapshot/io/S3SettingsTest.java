package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** S3 settings resolve like the Flink S3 plugin's: {@code filesystem:} keys over {@code AWS_*} variables. */
class S3SettingsTest {
  @Test
  void environmentThenSettings() {
    Map<String, String> env = Map.of("AWS_ENDPOINT_URL", "http://env:9000", "AWS_ACCESS_KEY_ID", "env-key",
        "AWS_SECRET_ACCESS_KEY", "env-secret", "AWS_DEFAULT_REGION", "eu-west-1");
    S3Settings fromEnv = S3Settings.of(Map.of(), env);
    assertEquals(URI.create("http://env:9000"), fromEnv.endpoint());
    assertTrue(fromEnv.pathStyle(), "a custom endpoint implies path-style access");
    assertEquals("env-key", fromEnv.accessKey());
    assertEquals("eu-west-1", fromEnv.region());
    assertTrue(fromEnv.conditionalWrites());

    S3Settings overridden = S3Settings.of(Map.of("s3.endpoint", "http://conf:9000", "s3.access-key", "k",
        "s3.secret-key", "s", "s3.path.style.access", "false", "s3.region", "us-west-2",
        S3Settings.CONDITIONAL_WRITES, "false"), env);
    assertEquals(URI.create("http://conf:9000"), overridden.endpoint());
    assertFalse(overridden.pathStyle());
    assertEquals("k", overridden.accessKey());
    assertEquals("us-west-2", overridden.region());
    assertFalse(overridden.conditionalWrites());
    assertFalse(overridden.toString().contains("\"s\""), "no secrets in the logged settings");

    S3Settings aws = S3Settings.of(Map.of(), Map.of("AWS_ENDPOINT_URL_S3", "http://s3-only:1", "AWS_ENDPOINT_URL", "x"));
    assertEquals(URI.create("http://s3-only:1"), aws.endpoint());
    S3Settings plain = S3Settings.of(Map.of(), Map.of());
    assertNull(plain.endpoint());
    assertFalse(plain.pathStyle());
    assertNull(plain.accessKey(), "the SDK's default credential chain");
    assertEquals("us-east-1", plain.region());
    assertEquals(S3Settings.DEFAULT_MAX_ATTEMPTS, plain.maxAttempts());
  }

  @Test
  void maxAttemptsIsBounded() {
    assertEquals(3, S3Settings.of(Map.of(S3Settings.MAX_ATTEMPTS, " 3 "), Map.of()).maxAttempts());
    assertEquals(1, S3Settings.of(Map.of(S3Settings.MAX_ATTEMPTS, "1"), Map.of()).maxAttempts());
    for (String bad : new String[] {"0", "21", "-1", "many"}) {
      ConfigException e = assertThrows(ConfigException.class,
          () -> S3Settings.of(Map.of(S3Settings.MAX_ATTEMPTS, bad), Map.of()), bad);
      assertTrue(e.getMessage().contains(S3Settings.MAX_ATTEMPTS), e.getMessage());
    }
  }

  @Test
  void schemes() {
    assertTrue(S3Settings.isS3("s3://b/p"));
    assertTrue(S3Settings.isS3("S3A://b/p"));
    assertTrue(S3Settings.isS3("s3p://b"));
    assertFalse(S3Settings.isS3("hdfs://nn/p"));
    assertFalse(S3Settings.isS3("/local/s3://x"));
  }
}
