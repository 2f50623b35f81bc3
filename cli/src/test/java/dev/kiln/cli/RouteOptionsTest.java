package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln route} and {@code kiln serve --shards}: bad values exit 2 before any work. */
class RouteOptionsTest {
  @Test
  void badRouterOptionsAreUsageErrors(@TempDir Path dir) throws Exception {
    assertEquals(Kiln.USAGE, Kiln.execute("route"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", "127.0.0.1:8081"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", "http://127.0.0.1:8081,ftp://x:1"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", "http://127.0.0.1:8081", "--deadline-ms", "0"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", "http://127.0.0.1:8081", "--hedge-ms", "-1"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", "http://127.0.0.1:8081", "--port", "70000"));
    Path config = dir.resolve("route.conf");
    Files.writeString(config, "group = http://127.0.0.1:8081\nhedge = 5\n");
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--config", config.toString()));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--config", dir.resolve("missing").toString()));
    // A group key file that is missing, empty or holds a key with spaces.
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", "http://127.0.0.1:8081", "--group-key-file",
        dir.resolve("no-key").toString()));
    Path key = dir.resolve("key");
    for (String bad : new String[] {"", "two words"}) {
      Files.writeString(key, bad + "\n");
      assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", "http://127.0.0.1:8081", "--group-key-file",
          key.toString()), bad);
    }
    // Federated roots: one alone, one twice, weights that do not match them, a negative weight.
    String g = "http://127.0.0.1:8081";
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", g, "--root", "/a"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", g, "--root", "/a", "--root", "/a"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", g, "--root", "/a", "--root", "/b", "--root-weight", "1"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", g, "--root", "/a", "--root", "/b", "--root-weight", "1",
        "--root-weight", "-1"));
    Files.writeString(config, "group = " + g + "\nroot = /a\nroot = /b\nroot-weight = heavy\n");
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--config", config.toString()));
    // A reranker directory without a model (flag or config key): refused before any group is asked.
    Path empty = Files.createDirectories(dir.resolve("no-model"));
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--group", g, "--rerank-model", empty.toString()));
    Files.writeString(config, "group = " + g + "\nrerank-model = " + empty + "\n");
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--config", config.toString()));
    // Sound options reach the groups; none answers on a closed port: the router refuses to start (usage).
    Files.writeString(config, "# two groups\ngroup = http://127.0.0.1:1\ngroup = http://127.0.0.1:2\n");
    assertEquals(Kiln.USAGE, Kiln.execute("route", "--config", config.toString(), "--deadline-ms", "500"));
  }

  @Test
  void badShardRangesAreUsageErrors(@TempDir Path dir) throws Exception {
    String root = dir.resolve("empty").toString();
    for (String bad : new String[] {"x", "3-1", "-2", ""}) {
      assertEquals(Kiln.USAGE, Kiln.execute("serve", "--snapshots", root, "--shards", bad), bad);
    }
  }
}
