package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --set KEY=VALUE} on every command: any key of the YAML, precise errors, one precedence order. */
class SetOptionTest {
  static final Path CONFIG = Path.of("..", "configs", "build.yaml");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final ObjectMapper TREE = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE);

  /** For each text key of build.yaml, another value that {@code validate()} accepts. */
  static final Map<String, String> OTHER_TEXT = Map.ofEntries(
      Map.entry("format", "jsonl"),
      Map.entry("shuffle", "hybrid"),
      Map.entry("concurrent-builds", "wait"),
      Map.entry("incremental", "off"),
      Map.entry("incremental-files", "read"),
      Map.entry("snapshots", "elsewhere/snapshots"),
      Map.entry("ingest.quarantine-dir", "/tmp/kiln-quarantine"),
      Map.entry("ingest.id-field", "id"),
      Map.entry("ingest.title-field", "name"),
      Map.entry("ingest.text-field", "body"),
      Map.entry("ingest.metadata-field", "meta"),
      Map.entry("ingest.vector-field", "embedding"),
      Map.entry("ingest.metadata-fields.tenant", "customer"),
      Map.entry("ingest.metadata-fields.doc_type", "kind"),
      Map.entry("ingest.metadata-fields.version", "rev"),
      Map.entry("ingest.metadata-fields.language", "lang"),
      Map.entry("chunker.strategy", "window"),
      Map.entry("chunker.text-strategy", "window"),
      Map.entry("chunker.markdown-strategy", "recursive"),
      Map.entry("chunker.html-strategy", "recursive"),
      Map.entry("chunker.size", "120"),       // auto in the file; a number is the other value
      Map.entry("chunker.overlap", "10"),
      Map.entry("embed.model", "bge-small-en-v15-q"),
      Map.entry("embed.device", "cpu"),
      Map.entry("embed.reuse-from", "20261202T131755Z-3fa9c1"),
      Map.entry("index.vector-encoding", "int8"),
      Map.entry("index.analyzer", "standard"),
      Map.entry("changelog.topic", "orders"),
      Map.entry("changelog.bootstrap", "127.0.0.1:9092"),
      Map.entry("changelog.base-snapshot", "20261202T131755Z-3fa9c1"),
      Map.entry("changelog.format", "debezium"),
      Map.entry("changelog.id-field", "order_id"),
      Map.entry("changelog.soft-delete-field", "deleted"));

  /** Keys that validate() accepts only together with another one. */
  static final Map<String, String> COMPANION = Map.of(
      "changelog.topic", "changelog.bootstrap=127.0.0.1:9092",
      "changelog.bootstrap", "changelog.topic=orders");

  /** An entry for a map whose values are typed (key, value), where "some.setting=on" would be refused. */
  static final Map<String, String[]> MAP_ENTRY = Map.of(
      "index.range-fields", new String[] {"priority", "long"});

  static BuildConfig build(String... args) {
    BuildCommand command = new BuildCommand();
    new CommandLine(command).parseArgs(args);
    return command.effectiveConfig();
  }

  @Test
  void everyKeyOfTheDefaultConfigCanBeSetOnTheCommandLine() throws IOException {
    JsonNode file = YAML.readTree(CONFIG.toFile());
    List<Map.Entry<String, JsonNode>> keys = new ArrayList<>();
    leaves("", file, keys);
    assertTrue(keys.size() > 50, "build.yaml has " + keys.size() + " keys");
    BuildConfig plain = build("--config", CONFIG.toString());
    for (Map.Entry<String, JsonNode> key : keys) {
      String name = key.getKey();
      JsonNode was = key.getValue();
      String assignment;
      JsonNode expected;
      if (was.isObject()) { // an empty map in the file: set one entry
        String[] entry = MAP_ENTRY.getOrDefault(name, new String[] {"some.setting", "on"});
        assignment = name + "." + entry[0] + "=" + entry[1];
        name = name + "." + entry[0];
        expected = TREE.valueToTree(entry[1]);
      } else if (was.isArray()) {
        assignment = name + "=[alpha, beta]";
        expected = TREE.valueToTree(List.of("alpha", "beta"));
      } else if (was.isBoolean()) {
        assignment = name + "=" + !was.asBoolean();
        expected = TREE.valueToTree(!was.asBoolean());
      } else if (was.isIntegralNumber()) {
        assignment = name + "=" + (was.asLong() + 1);
        expected = TREE.valueToTree(was.asLong() + 1);
      } else if (was.isNumber()) {
        assignment = name + "=" + was.asDouble() / 2;
        expected = TREE.valueToTree(was.asDouble() / 2);
      } else {
        assertTrue(OTHER_TEXT.containsKey(name), "give the text key " + name + " another value in OTHER_TEXT");
        assignment = name + "=" + OTHER_TEXT.get(name);
        expected = TREE.valueToTree(OTHER_TEXT.get(name));
      }
      List<String> args = new ArrayList<>(List.of("--config", CONFIG.toString(), "--set", assignment));
      if (COMPANION.containsKey(name)) {
        args.addAll(List.of("--set", COMPANION.get(name)));
      }
      BuildConfig set = build(args.toArray(String[]::new));
      JsonNode actual = at(TREE.valueToTree(set), name);
      assertNotEquals(expected, at(TREE.valueToTree(plain), name), name + ": the test must change the value");
      if (expected.isNumber() && actual.isNumber()) {
        assertEquals(expected.asDouble(), actual.asDouble(), 1e-6, assignment);
      } else if (expected.isTextual() && actual.isNumber()) { // a number given to an 'auto' key
        assertEquals(expected.asText(), actual.asText(), assignment);
      } else {
        assertEquals(expected, actual, assignment);
      }
    }
  }

  @Test
  void everyKeyOfTheTypedConfigIsInTheDefaultConfig() throws IOException {
    // The rules: every key lives in the typed config and in build.yaml with a comment.
    List<Map.Entry<String, JsonNode>> file = new ArrayList<>();
    leaves("", YAML.readTree(CONFIG.toFile()), file);
    List<Map.Entry<String, JsonNode>> typed = new ArrayList<>();
    leaves("", TREE.valueToTree(new BuildConfig()), typed);
    List<String> fileKeys = file.stream().map(Map.Entry::getKey).toList();
    for (Map.Entry<String, JsonNode> key : typed) {
      assertTrue(fileKeys.contains(key.getKey()), key.getKey() + " is missing from " + CONFIG);
    }
  }

  @Test
  void specificOptionsWinOverSetWhichWinsOverTheFile() {
    BuildConfig c = build("--config", CONFIG.toString(), "--set", "shards=8", "--set", "parallelism=5", "--shards", "3",
        "--set", "chunker.size=100", "--parents", "400", "--fs", "s3.endpoint=http://b", "--set",
        "filesystem.s3.endpoint=http://a", "--set", "filesystem.s3.path.style.access=true");
    assertEquals(3, c.shards);
    assertEquals(5, c.parallelism);
    assertEquals(100, c.chunker.size);
    assertTrue(c.chunker.parents.enabled);
    assertEquals(400, c.chunker.parents.size);
    assertEquals(Map.of("s3.endpoint", "http://b", "s3.path.style.access", "true"), c.filesystem);
    assertTrue(String.join("\n", c.describe()).contains("+ parallelism: 5"));
  }

  @Test
  void theSpecificOptionsStillMapOntoTheirKeys() {
    BuildConfig c = build("--config", CONFIG.toString(), "--corpus", "a", "--corpus", "b", "--format", "jsonl",
        "--snapshots", "s", "--parallelism", "3", "--model", "e5-small-v2-q", "--chunk-size", "120",
        "--chunk-overlap", "10", "--chunker", "recursive", "--batch-size", "4", "--device", "cpu",
        "--vector-encoding", "int4", "--no-reuse", "--reuse-from", "20261202T131755Z-3fa9c1", "--no-publish",
        "--restart-attempts", "0", "--changelog-topic", "t", "--kafka-bootstrap", "h:1", "--base-snapshot", "current");
    assertEquals(List.of("a", "b"), c.corpus);
    assertEquals("jsonl", c.format);
    assertEquals("s", c.snapshots);
    assertEquals(3, c.parallelism);
    assertEquals("e5-small-v2-q", c.embed.model);
    assertEquals(120, c.chunker.size);
    assertEquals(10, c.chunker.overlap);
    assertEquals("recursive", c.chunker.strategy);
    assertEquals(4, c.embed.batchSize);
    assertEquals("cpu", c.embed.device);
    assertEquals("int4", c.index.vectorEncoding);
    assertFalse(c.embed.reuse);
    assertEquals("20261202T131755Z-3fa9c1", c.embed.reuseFrom);
    assertFalse(c.publish);
    assertEquals(0, c.restartAttempts);
    assertEquals("t", c.changelog.topic);
    assertEquals("h:1", c.changelog.bootstrap);
    assertEquals("current", c.changelog.baseSnapshot);
  }

  @Test
  void badKeysAndValuesNameTheKey() {
    assertTrue(message(() -> build("--config", CONFIG.toString(), "--set", "index.hnsw-mm=3"))
        .contains("unknown key 'index.hnsw-mm'"));
    assertEquals("--set embed.batch-size=eight: 'embed.batch-size' takes a whole number, not 'eight'",
        message(() -> build("--config", CONFIG.toString(), "--set", "embed.batch-size=eight")));
    assertTrue(message(() -> build("--config", CONFIG.toString(), "--set", "embed.batch-size=-1"))
        .startsWith("embed.batch-size must be"));
  }

  @Test
  void everyCommandTakesSetAndABadOneExitsTwo(@TempDir Path dir) throws IOException {
    String root = dir.toString();
    Path queries = Files.writeString(dir.resolve("q.jsonl"), "{\"_id\": \"1\", \"text\": \"q\"}\n");
    Path qrels = Files.writeString(dir.resolve("qrels.tsv"), "query-id\tcorpus-id\tscore\n1\td\t1\n");
    Path regressions = Files.createDirectories(dir.resolve("regressions"));
    List<List<String>> commands = List.of(
        List.of("build", "--snapshots", root, "--corpus", root),
        List.of("search", "--snapshots", root, "q"),
        List.of("eval", "--snapshots", root, "--queries", queries.toString(), "--qrels", qrels.toString()),
        List.of("serve", "--snapshots", root, "--port", "0"),
        List.of("snapshots", "list", "--snapshots", root),
        List.of("regress", "--regressions", regressions.toString(), "--datasets", root));
    for (List<String> command : commands) {
      for (String bad : List.of("no.such.key=1", "filesystem=not-a-map")) {
        List<String> args = new ArrayList<>(command);
        args.add(command.get(0).equals("snapshots") ? 2 : 1, "--set");
        args.add(command.get(0).equals("snapshots") ? 3 : 2, bad);
        assertEquals(2, Kiln.execute(args.toArray(String[]::new)), String.join(" ", args));
      }
    }
    // A file system key is what search, eval, serve and snapshots read; it is accepted.
    assertEquals(0, Kiln.execute("snapshots", "list", "--set", "filesystem.s3.endpoint=http://127.0.0.1:1",
        "--snapshots", root));
  }


  private static String message(Executable run) {
    return assertThrows(ConfigException.class, run).getMessage();
  }

  /** Dotted keys of a YAML tree's values; empty maps and lists count as values. */
  static void leaves(String prefix, JsonNode node, List<Map.Entry<String, JsonNode>> out) {
    if (node.isObject() && !node.isEmpty()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        leaves(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), out);
      }
    } else {
      out.add(Map.entry(prefix, node));
    }
  }

  /** The value at a dotted key; a map entry's own name may hold dots. */
  static JsonNode at(JsonNode tree, String key) {
    JsonNode node = tree;
    String[] parts = key.split("\\.");
    for (int i = 0; i < parts.length; i++) {
      String rest = String.join(".", List.of(parts).subList(i, parts.length));
      if (node.has(rest)) {
        return node.get(rest);
      }
      node = node.path(parts[i]);
    }
    return node;
  }
}
