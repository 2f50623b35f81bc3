package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import dev.kiln.search.filter.MetadataFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiKeysTest {
  @TempDir Path dir;

  private Path file(String text, String perms) throws Exception {
    Path f = Files.createTempFile(dir, "keys", ".txt");
    Files.writeString(f, text);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(perms));
    return f;
  }

  @Test
  void plainAndDigestKeysAreFoundAndBindingsRead() throws Exception {
    String digestOf = "second-key-abcdefghij";
    ApiKeys keys = ApiKeys.load(file("# comment\n\nfirst-key-abcdefghijk tenant=acme lang=en lang=de\n"
        + "sha256:" + ApiKeys.sha256(digestOf).toUpperCase(Locale.ROOT) + "\n", "rw-------"));
    assertEquals(2, keys.size());
    ApiKeys.Key first = keys.lookup("first-key-abcdefghijk");
    assertEquals(3, first.line());
    assertEquals(MetadataFilter.of(Map.of("tenant", List.of("acme"), "lang", List.of("en", "de"))), first.binding());
    assertTrue(keys.lookup(digestOf).binding().isEmpty());
    assertNull(keys.lookup("first-key-abcdefghij"));
    assertNull(keys.lookup(null));
    assertNull(keys.lookup(""));
  }

  @Test
  void badLinesNameTheOptionAndTheLine() throws Exception {
    Map<String, String> cases = Map.of(
        "short\n", "line 1: a key must be at least 16 characters",
        "sha256:abc\n", "line 1: sha256: must be followed by 64 hex digits",
        "# c\nfirst-key-abcdefghijk tenant\n", "line 2: expected name=value",
        "first-key-abcdefghijk ten/ant=x\n", "line 1: malformed key 'ten/ant': use letters, digits, '_', '-' or '.'",
        "first-key-abcdefghijk " + IntStream.range(0, 65).mapToObj(n -> "k" + n + "=v")
            .collect(Collectors.joining(" ")) + "\n", "line 1: names 65 distinct keys; at most 64",
        "first-key-abcdefghijk\nfirst-key-abcdefghijk\n", "line 2: the same key appears twice",
        "# only comments\n", "holds no key");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      ConfigException e = assertThrows(ConfigException.class, () -> ApiKeys.load(file(c.getKey(), "rw-------")));
      assertTrue(e.getMessage().startsWith("--api-keys "), e.getMessage());
      assertTrue(e.getMessage().contains(c.getValue()), c.getKey() + " → " + e.getMessage());
    }
    assertThrows(ConfigException.class, () -> ApiKeys.load(dir.resolve("missing")));
  }

  @Test
  void filePermissionsAreChecked() throws Exception {
    String plain = "first-key-abcdefghijk tenant=acme\n";
    String digest = "sha256:" + ApiKeys.sha256("first-key-abcdefghijk") + " tenant=acme\n";
    assertTrue(assertThrows(ConfigException.class, () -> ApiKeys.load(file(plain, "rw-r--r--")))
        .getMessage().contains("chmod 600"));
    assertTrue(assertThrows(ConfigException.class, () -> ApiKeys.load(file(digest, "rw-rw-r--")))
        .getMessage().contains("chmod go-w"));
    assertNotNull(ApiKeys.load(file(digest, "rw-r--r--")).lookup("first-key-abcdefghijk"),
        "digests are no secret: a readable file of digests is fine");
  }

  @Test
  void narrowingIsTheAndOfBindingAndRequest() {
    ApiKeys.Key acme = new ApiKeys.Key(1, MetadataFilter.parse(List.of("tenant=acme")));
    assertEquals(Optional.of(MetadataFilter.parse(List.of("tenant=acme"))), acme.narrow(MetadataFilter.none()));
    assertEquals(Optional.of(MetadataFilter.parse(List.of("tenant=acme", "lang=en"))),
        acme.narrow(MetadataFilter.parse(List.of("lang=en"))));
    assertEquals(Optional.empty(), acme.narrow(MetadataFilter.parse(List.of("tenant=globex"))));
    assertEquals(Optional.of(MetadataFilter.parse(List.of("tenant=acme"))),
        acme.narrow(MetadataFilter.parse(List.of("tenant=globex", "tenant=acme"))));
    ApiKeys.Key two = new ApiKeys.Key(1, MetadataFilter.parse(List.of("tenant=acme", "tenant=initech")));
    assertEquals(Optional.of(MetadataFilter.parse(List.of("tenant=initech"))),
        two.narrow(MetadataFilter.parse(List.of("tenant=initech", "tenant=globex"))));
    ApiKeys.Key free = new ApiKeys.Key(1, MetadataFilter.none());
    assertEquals(Optional.of(MetadataFilter.parse(List.of("tenant=globex"))),
        free.narrow(MetadataFilter.parse(List.of("tenant=globex"))));
  }
}
