package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln serve}'s protection options: bad values and unsafe key files exit 2 before any work. */
class ServeOptionsTest {
  @Test
  void badLimitsAndKeyFilesAreUsageErrors(@TempDir Path dir) throws Exception {
    String root = dir.resolve("empty").toString();
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--queue", "-1"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--idle-timeout-ms", "0"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--max-connections", "0"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--max-ef", "0"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--max-depth", "-3"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--max-rerank-depth", "0"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--api-keys", dir.resolve("none").toString()));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--source-root", "/data/corpus=a/b"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--source-root", "=acme"));
    Path readable = dir.resolve("keys");
    Files.writeString(readable, "a-plain-key-0123456789 tenant=acme\n");
    Files.setPosixFilePermissions(readable, PosixFilePermissions.fromString("rw-r--r--"));
    assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--api-keys", readable.toString()));
    // Sound options get as far as the snapshots root, which has nothing published: a failure, not usage.
    Files.setPosixFilePermissions(readable, PosixFilePermissions.fromString("rw-------"));
    assertEquals(Kiln.FAILURE, Kiln.execute("serve", "--snapshots", root, "--api-keys", readable.toString(),
        "--queue", "0", "--max-ef", "200", "--rewriter", "keywords", "--allowed-host", "kiln.internal", "--source-root", "/data/corpus=acme",
        "--source-root", "s3://corpora/globex"));
  }
}
