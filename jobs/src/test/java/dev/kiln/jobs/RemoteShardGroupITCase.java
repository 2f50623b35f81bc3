package dev.kiln.jobs;

import static dev.kiln.jobs.RemoteServeITCase.awaitPort;
import static dev.kiln.jobs.RemoteServeITCase.awaitSnapshot;
import static dev.kiln.jobs.RemoteServeITCase.get;
import static dev.kiln.jobs.RemoteServeITCase.getQuietly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.search.ShardSelection;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.testing.KilnProcess;
import dev.kiln.testing.S3Server;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln serve --shards 0-1} (a real server process) of an {@code s3://} root holding a 4-shard
 * snapshot downloads, verifies and keeps only shards 0 and 1: its cache holds those directories, the
 * bytes it downloads are those shards' bytes, its answers are a local group's answers, a damaged file
 * of shard 3 does not stop it, the next snapshot costs it only its shards' new files, and a damaged
 * file of its own shards is refused with the file named while the verified snapshot keeps serving.
 */
class RemoteShardGroupITCase {
  static final String ROOT = "s3://" + RemoteServeITCase.BUCKET + "/snapshots";
  static final ShardSelection GROUP = ShardSelection.parse("0-1");
  static final Pattern FETCHED = Pattern.compile("snapshot (\\S+) of " + Pattern.quote(ROOT)
      + ", 2 of 4 shards \\(group 0-1\\): (\\d+) files \\((\\d+) bytes\\) downloaded and verified, (\\d+) \\((\\d+)"
      + " bytes\\) linked");

  @TempDir static Path work;
  static S3Server server;
  static Path staging;
  static Path config;

  @BeforeAll
  static void start() throws Exception {
    server = new S3Server(work.resolve("blobs"), RemoteServeITCase.BUCKET);
    staging = Files.createDirectories(work.resolve("staging"));
    var s3 = server.settings();
    config = Files.writeString(work.resolve("serve.yaml"), "filesystem:\n"
        + "  s3.endpoint: " + s3.get("s3.endpoint") + "\n"
        + "  s3.path.style.access: true\n"
        + "  s3.access-key: " + S3Server.ACCESS + "\n"
        + "  s3.secret-key: " + S3Server.SECRET + "\n");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** Uploads the files of {@code id}'s directories {@code dirs} (all when empty) as written in staging. */
  static void upload(String id, Set<String> dirs) throws Exception {
    Path dir = new SnapshotLayout(staging).snapshotDir(id);
    List<Path> files;
    try (Stream<Path> walk = Files.walk(dir)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    for (Path f : files) {
      String rel = dir.relativize(f).toString();
      boolean top = !rel.contains("/");
      if ((top && !rel.equals(SnapshotLayout.MANIFEST)) || (!top && !dirs.isEmpty()
          && !dirs.contains(rel.substring(0, rel.indexOf('/'))))) {
        continue;
      }
      server.putFile(key(id, rel), f);
    }
  }

  static String key(String id, String rel) {
    return "snapshots/" + SnapshotLayout.snapshotKey(id) + rel;
  }

  static void publish(String id) {
    server.put("snapshots/CURRENT", (id + "\n").getBytes(StandardCharsets.UTF_8));
  }

  static Manifest manifest(String id) throws Exception {
    return SnapshotStore.json().readValue(server.bytes(key(id, SnapshotLayout.MANIFEST)), Manifest.class);
  }

  /** The bytes of {@code shards}' serving files that {@code m} lists as its own (not referenced). */
  static long ownBytes(Manifest m, Set<Integer> shards) {
    return m.shards().stream().filter(s -> shards.contains(s.shard())).flatMap(s -> s.servingFiles().stream())
        .filter(f -> !f.referenced(m.id())).mapToLong(Manifest.FileEntry::size).sum();
  }

  static void flipLargest(String id, int shard) throws Exception {
    Manifest.ShardEntry s = manifest(id).shards().get(shard);
    Manifest.FileEntry f = s.servingFiles().stream().max((a, b) -> Long.compare(a.size(), b.size())).orElseThrow();
    String key = key(id, s.directory() + "/" + f.name());
    byte[] bytes = server.bytes(key);
    bytes[bytes.length / 2] ^= 0x01;
    server.put(key, bytes);
  }

  /** What the server's log says it fetched of {@code id}: [files, bytes, linked files, linked bytes]. */
  static long[] fetched(KilnProcess serve, String id) throws Exception {
    Matcher m = FETCHED.matcher(serve.log());
    while (m.find()) {
      if (m.group(1).equals(id)) {
        return new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), Long.parseLong(m.group(4)),
            Long.parseLong(m.group(5))};
      }
    }
    throw new AssertionError("no download of " + id + " for group 0-1 logged:\n" + serve.log());
  }

  /** The entries of the serving cache's copy of {@code id}. */
  static Set<String> cached(Path cache, String id) throws Exception {
    Path dir;
    try (Stream<Path> dirs = Files.list(cache.resolve("remote-snapshots"))) {
      dir = dirs.filter(d -> d.getFileName().toString().endsWith(".serve-1")).findFirst().orElseThrow()
          .resolve("snapshots").resolve(id);
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  /**
   * A next snapshot that keeps shards 0 and 2 of {@code base} by reference (manifest format 2) and
   * has new files for shards 1 and 3, of which only those are uploaded.
   */
  static String referencing(String base) throws Exception {
    String id = ShardedCorpus.write(staging, 400, 4, 8);
    ObjectNode m = (ObjectNode) SnapshotStore.json().readTree(new SnapshotLayout(staging).manifest(id).toFile());
    JsonNode was = SnapshotStore.json().readTree(server.bytes(key(base, SnapshotLayout.MANIFEST)));
    ArrayNode shards = (ArrayNode) m.get("shards");
    for (int s : new int[] {0, 2}) {
      ObjectNode kept = was.get("shards").get(s).deepCopy();
      for (JsonNode f : kept.get("files")) {
        ((ObjectNode) f).put("snapshot", base);
      }
      shards.set(s, kept);
    }
    upload(id, Set.of(SnapshotLayout.shardDirName(1), SnapshotLayout.shardDirName(3)));
    server.put(key(id, SnapshotLayout.MANIFEST), SnapshotStore.json().writeValueAsBytes(m));
    return id;
  }

  @Test
  void aGroupOfARemoteRootFetchesKeepsAndChecksOnlyItsShards() throws Exception {
    String v1 = ShardedCorpus.write(staging, 400, 4, 7);
    upload(v1, Set.of());
    flipLargest(v1, 3); // another group's shard: this group never reads it
    publish(v1);
    Path cache = work.resolve("cache");
    KilnProcess serve = KilnProcess.start(work, "serve-group", null, false, List.of("-Dkiln.cache.dir=" + cache),
        List.of("serve", "--snapshots", ROOT, "--config", config.toString(), "--shards", "0-1", "--port", "0",
            "--poll-ms", "200", "--threads", "2"));
    try {
      int port = awaitPort(serve);
      assertEquals(v1, get(port, "/snapshot").get("snapshot").asText());
      assertEquals(Set.of("VERIFIED", "manifest.json", "shard-00000", "shard-00001"), cached(cache, v1),
          "the cache holds the group's shards only");
      long[] first = fetched(serve, v1);
      Manifest m1 = manifest(v1);
      assertEquals(ownBytes(m1, Set.of(0, 1)), first[1], "downloaded: shards 0 and 1, byte for byte");
      assertTrue(first[1] < ownBytes(m1, Set.of(0, 1, 2, 3)) * 3 / 4, "well under the whole snapshot");

      // The group answers as a local group over the same snapshot does.
      try (Searcher local = Searcher.builder().root(staging).snapshot(v1).options(SearchOptions.defaults())
          .shards(GROUP).build()) {
        for (String q : List.of("lava magma", "whale krill ocean", "commit branch rebase")) {
          List<SearchHit> expected = local.search(SearchRequest.of(q, SearchMode.BM25, 8)).results();
          JsonNode answer = get(port, "/search?q=" + RemoteServeITCase.enc(q) + "&k=8&mode=bm25").get("results");
          List<String> ids = new ArrayList<>();
          answer.forEach(h -> ids.add(h.get("chunk_id").asText()));
          assertEquals(expected.stream().map(SearchHit::chunkId).toList(), ids, q);
          assertFalse(ids.isEmpty(), q);
        }
      }
      JsonNode health = get(port, "/health");
      assertEquals("ok", health.get("status").asText(), health.toString());

      // The next snapshot keeps shard 0 by reference: the group links it and downloads shard 1's new files.
      String v2 = referencing(v1);
      publish(v2);
      awaitSnapshot(port, v2, serve);
      long[] second = fetched(serve, v2);
      Manifest m2 = manifest(v2);
      assertEquals(ownBytes(m2, Set.of(1)), second[1], "downloaded: shard 1's new files only");
      assertEquals(ownBytes(m1, Set.of(0)), second[3], "shard 0 linked from the copy of " + v1);
      assertEquals(Set.of("VERIFIED", "manifest.json", "shard-00000", "shard-00001"), cached(cache, v2));
      System.out.printf("RemoteShardGroupITCase: group 0-1 of 4 shards downloaded %d files, %d bytes of %s (whole"
          + " snapshot %d bytes); then %d files, %d bytes of %s, %d files (%d bytes) linked%n", first[0], first[1],
          v1, ownBytes(m1, Set.of(0, 1, 2, 3)), second[0], second[1], v2, second[2], second[3]);

      // A damaged file of the group's own shards: refused, named; the verified snapshot keeps serving.
      String v3 = ShardedCorpus.write(staging, 400, 4, 9);
      upload(v3, Set.of());
      flipLargest(v3, 1);
      publish(v3);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      JsonNode h = null;
      while (System.nanoTime() < deadline) {
        h = getQuietly(port, "/health");
        if (h != null && v3.equals(h.path("reload").path("failing_snapshot").asText())) {
          break;
        }
        Thread.sleep(50);
      }
      assertEquals("degraded", h.get("status").asText(), String.valueOf(h));
      JsonNode snapshot = get(port, "/snapshot");
      assertEquals(v2, snapshot.get("snapshot").asText(), "the verified snapshot keeps serving");
      String error = snapshot.get("reload").get("last_error").asText();
      assertTrue(error.contains("failed verification") && error.contains("shard-00001/"), error);
    } finally {
      serve.kill9();
    }
  }
  @Test
  void aLibrarySearcherOfAGroupOfARemoteRootDownloadsOnlyItsShards() throws Exception {
    String v = ShardedCorpus.write(staging, 400, 4, 11);
    upload(v, Set.of());
    flipLargest(v, 2); // another group's shard: never fetched, so never noticed
    var s3 = server.settings();
    try (Searcher group = Searcher.builder().root(ROOT).fileSystem(s3).snapshot(v).options(SearchOptions.defaults())
        .shards(GROUP).build();
        Searcher local = Searcher.builder().root(staging).snapshot(v).options(SearchOptions.defaults())
            .shards(GROUP).build()) {
      Path copy = RemoteRoots.groupMirror(ROOT, GROUP).resolve("snapshots").resolve(v);
      try (Stream<Path> entries = Files.list(copy)) {
        assertEquals(Set.of("VERIFIED", "manifest.json", "shard-00000", "shard-00001"),
            entries.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new)),
            "the library's copy holds the group's shards only");
      }
      long held;
      try (Stream<Path> walk = Files.walk(copy)) {
        held = walk.filter(p -> Files.isRegularFile(p) && p.getParent().getFileName().toString().startsWith("shard-"))
            .mapToLong(p -> p.toFile().length()).sum();
      }
      assertEquals(ownBytes(manifest(v), Set.of(0, 1)), held, "shards 0 and 1, byte for byte");
      for (String q : List.of("lava magma", "whale krill ocean")) {
        assertEquals(local.search(SearchRequest.of(q, SearchMode.BM25, 8)).results().stream().map(SearchHit::chunkId)
            .toList(), group.search(SearchRequest.of(q, SearchMode.BM25, 8)).results().stream()
            .map(SearchHit::chunkId).toList(), q);
      }
    }
  }
}
