package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.testing.FuzzTries;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes {@code --api-keys} files ({@link ApiKeys#load}) with random lines: keys plain and hashed,
 * bindings, comments, odd whitespace and bytes that are not UTF-8. Each file loads, or is refused with a
 * {@link ConfigException} (a usage error, exit 2), within a time budget; a loaded key looks up and
 * narrows a filter. Nothing else is thrown.
 */
@AddLifecycleHook(FuzzTries.class)
class ApiKeysFuzzTest {
  static final Duration BUDGET = Duration.ofSeconds(5);
  static Path dir;

  @BeforeContainer
  static void dir() throws IOException {
    dir = Files.createTempDirectory("kiln-api-keys-fuzz");
  }

  @AfterContainer
  static void cleanUp() throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Property(tries = 700)
  void randomLines(@ForAll("files") List<String> lines) {
    byte[] bytes = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    assertLoadsOrUsageError(bytes, lines);
  }

  @Property(tries = 150)
  void randomBytes(@ForAll("bytes") byte[] bytes) {
    assertLoadsOrUsageError(bytes, List.of());
  }

  static void assertLoadsOrUsageError(byte[] bytes, List<String> lines) {
    assertTimeoutPreemptively(BUDGET, () -> {
      Path file = Files.createTempFile(dir, "keys", ".txt");
      try {
        Files.write(file, bytes);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        ApiKeys keys;
        try {
          keys = ApiKeys.load(file);
        } catch (ConfigException usage) {
          return;
        }
        assertTrue(keys.size() > 0);
        for (String line : lines) {
          String[] fields = line.strip().split("\\s+");
          ApiKeys.Key key = keys.lookup(fields[0]);
          if (key != null) {
            assertNotNull(key.narrow(MetadataFilter.parse(List.of("tenant=acme", "lang:en"))));
          }
        }
      } finally {
        Files.deleteIfExists(file);
      }
    });
  }

  @Provide
  Arbitrary<List<String>> files() {
    Arbitrary<String> field = Arbitraries.oneOf(
        Arbitraries.of("first-key-abcdefghijk", "second-key-0123456789", "short", "sha256:", "sha256:"
            + "ab".repeat(32), "SHA256:" + "AB".repeat(32), "sha256:" + "g".repeat(64), "tenant=acme", "lang=en",
            "tenant=", "=acme", "=", "a=b=c", "#", "# comment", "year>=3", "key=\u00e9", "\u0000", "\t", "\u00a0",
            "\u2003", "\u001c", "k".repeat(16) + "=x"),
        Arbitraries.strings().ofMaxLength(20));
    Arbitrary<String> line = field.list().ofMaxSize(5).map(l -> String.join(" ", l));
    return line.list().ofMaxSize(6);
  }

  @Provide
  Arbitrary<byte[]> bytes() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
  }
}
