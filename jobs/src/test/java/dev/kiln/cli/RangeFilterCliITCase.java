package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Range filters end to end through the command line: {@code kiln build} with {@code index.range-fields}
 * in its config records them in the manifest, {@code kiln search --filter} applies them in every mode,
 * and a range on a key that is not range-indexed is a usage error (exit 2) naming the key.
 */
class RangeFilterCliITCase {
  @TempDir static Path work;
  static Path root;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void build() throws Exception {
    StringBuilder corpus = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      corpus.append("{\"_id\": \"release-").append(i).append("\", \"title\": \"Release notes ").append(i)
          .append("\", \"text\": \"Release ").append(i).append(" of the glacier monitoring service fixes sensor")
          .append(" drift and adds alerts.\", \"version\": ").append(i).append(", \"metadata\": {\"published\": \"")
          .append(i < 6 ? "2025-0" + (i + 1) + "-15" : "2026-0" + (i - 5) + "-15T08:00:00Z").append("\"}}\n");
    }
    // A version that is not an integer: exact-match filterable, in no range, and counted.
    corpus.append("{\"_id\": \"release-next\", \"text\": \"The next glacier sensor release.\", \"version\":"
        + " \"v13-beta\"}\n");
    Path data = work.resolve("releases.jsonl");
    Files.writeString(data, corpus);
    Path config = work.resolve("build.yaml");
    Files.writeString(config, "index:\n  range-fields: {version: long, published: date}\n");
    root = work.resolve("snapshots");
    CliRun run = CliRun.of("build", "--config", config.toString(), "--corpus", data.toString(), "--snapshots",
        root.toString(), "--shards", "2", "--parallelism", "2");
    assertEquals(0, run.exitCode(), run.out() + run.err());
    assertTrue(run.out().contains("+ index.range-fields.version: long"), "the effective config names them");
  }

  static List<String> search(String mode, String... filters) throws Exception {
    List<String> args = new ArrayList<>(List.of("search", "--snapshots", root.toString(), "--mode", mode, "--k", "20",
        "--json"));
    for (String f : filters) {
      args.add("--filter");
      args.add(f);
    }
    args.add("glacier sensor release notes");
    CliRun run = CliRun.of(args.toArray(String[]::new));
    assertEquals(0, run.exitCode(), run.err());
    List<String> ids = new ArrayList<>();
    JsonNode json = JSON.readTree(run.out());
    json.get("results").forEach(h -> ids.add(h.get("doc_id").asText()));
    return ids.stream().distinct().sorted().toList();
  }

  @Test
  void theManifestRecordsTheRangeFields() throws Exception {
    String id = new SnapshotStore(root).currentId();
    JsonNode manifest = JSON.readTree(new SnapshotLayout(root).manifest(id).toFile());
    assertEquals("{\"published\":\"date\",\"version\":\"long\"}", manifest.get("range_fields").toString());
    assertEquals(1, manifest.get("counters").get("range.values.unparsed").asLong(), "v13-beta");
  }

  @Test
  void rangesApplyInEveryMode() throws Exception {
    for (String mode : List.of("bm25", "dense", "hybrid")) {
      assertEquals(List.of("release-10", "release-11", "release-9"), search(mode, "version>8"), mode);
      assertEquals(List.of("release-3", "release-4"), search(mode, "3<=version<5"), mode);
      assertEquals(List.of("release-6", "release-7"), search(mode, "published>=2026-01-01", "version<=7"), mode);
      assertEquals(List.of("release-5"), search(mode, "published>2025-05-15", "published<=2025-06-15"), mode);
      assertEquals(List.of("release-2"), search(mode, "version<4", "version>=2", "version=2"), mode);
      assertEquals(List.of("release-next"), search(mode, "version=v13-beta"), mode);
    }
  }

  @Test
  void aRangeOnAKeyThatIsNotRangeIndexedIsAUsageError() {
    CliRun run = CliRun.of("search", "--snapshots", root.toString(), "--mode", "bm25", "--filter", "title>=R", "q");
    assertEquals(Kiln.USAGE, run.exitCode());
    assertTrue(run.err().contains("'title' is not range-indexed") && run.err().contains("published, version"),
        run.err());
    CliRun wrongType = CliRun.of("search", "--snapshots", root.toString(), "--filter", "published>=last week", "q");
    assertEquals(Kiln.USAGE, wrongType.exitCode());
    assertFalse(wrongType.err().isEmpty());
  }
}
