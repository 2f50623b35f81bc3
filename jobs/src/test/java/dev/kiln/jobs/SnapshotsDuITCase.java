package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.publish.SharedSnapshots;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.S3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln snapshots du} on a local root and an S3 bucket (s3proxy), over snapshots that share
 * files: per snapshot the bytes it needs, holds, references and alone holds; the root's stored bytes,
 * each shared file once; and what {@code gc --keep N} frees — which is what it then frees. After that
 * gc, {@code list} and {@code show} name the directory gc retired.
 */
class SnapshotsDuITCase {
  private static final String BUCKET = "kiln-du";
  @TempDir static Path work;
  static S3Server s3;
  static Path config;

  @BeforeAll
  static void server() throws Exception {
    s3 = new S3Server(work.resolve("blobs"), BUCKET);
    StringBuilder yaml = new StringBuilder("filesystem:\n");
    s3.settings().forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
    config = Files.writeString(work.resolve("s3.yaml"), yaml);
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void onALocalRoot() throws Exception {
    Path root = work.resolve("local");
    SnapshotStore store = new SnapshotStore(root);
    List<String> ids = fourSnapshots(store);
    JsonNode before = du(root.toString(), List.of());
    assertEquals(bytesOnDisk(root), before.get("stored_bytes").asLong(), "stored: each hard-linked file once");
    checkAgainstGc(root.toString(), List.of(), store, ids, before);
    assertEquals(bytesOnDisk(root), du(root.toString(), List.of()).get("stored_bytes").asLong());
  }

  @Test
  void onS3() throws Exception {
    String root = "s3://" + BUCKET + "/root/snapshots";
    SnapshotStore store = RemoteStorages.store(root, s3.settings());
    List<String> ids = fourSnapshots(store);
    JsonNode before = du(root, List.of("--config", config.toString()));
    checkAgainstGc(root, List.of("--config", config.toString()), store, ids, before);

    // The oldest snapshot's files are referenced by those kept: gc retired its directory.
    String a = ids.get(0);
    CliRun list = CliRun.of("snapshots", "list", "--json", "--snapshots", root, "--config", config.toString());
    assertEquals(0, list.exitCode(), list.err());
    JsonNode row = null;
    for (JsonNode r : new ObjectMapper().readTree(list.out()).get("snapshots")) {
      if (r.get("id").asText().equals(a)) {
        row = r;
      }
    }
    assertEquals("retired", row == null ? null : row.get("state").asText(), list.out());
    CliRun show = CliRun.of("snapshots", "show", a, "--snapshots", root, "--config", config.toString());
    assertEquals(1, show.exitCode());
    assertTrue(show.err().contains("was removed by 'kiln snapshots gc'") && show.err().contains("reference"),
        show.err());
    CliRun text = CliRun.of("snapshots", "du", "--snapshots", root, "--config", config.toString());
    assertEquals(0, text.exitCode(), text.err());
    assertTrue(text.out().contains(a) && text.out().contains("retired") && text.out().contains("UNIQUE")
        && text.out().contains("gc --keep 3 would remove"), text.out());
  }

  /** a ← b ← c ← d, each sharing its base's shard and docstore files (and adding its own); d published. */
  private static List<String> fourSnapshots(SnapshotStore store) {
    SharedSnapshots s = new SharedSnapshots(store, new Random(44), "00d0d0");
    SnapshotPublisher p = s.publisher();
    List<String> ids = new ArrayList<>();
    String base = null;
    for (int i = 0; i < 4; i++) {
      String id = s.complete(base, 1.0);
      p.publish(id, base, false);
      ids.add(id);
      base = id;
    }
    return ids;
  }

  private static JsonNode du(String root, List<String> options, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("snapshots", "du", "--json", "--snapshots", root));
    args.addAll(options);
    args.addAll(List.of(more));
    CliRun run = CliRun.of(args.toArray(String[]::new));
    assertEquals(0, run.exitCode(), run.err());
    return new ObjectMapper().readTree(run.out());
  }

  /** The per-snapshot sums, then {@code gc --keep 1}: it frees what du said, up to the retired markers it writes. */
  private static void checkAgainstGc(String root, List<String> options, SnapshotStore store, List<String> ids,
      JsonNode before) throws Exception {
    long listed = 0;
    List<String> seen = new ArrayList<>();
    for (JsonNode s : before.get("snapshots")) {
      seen.add(s.get("id").asText());
      assertEquals(s.get("bytes").asLong(), s.get("own_bytes").asLong() + s.get("referenced_bytes").asLong());
      listed += s.get("own_bytes").asLong();
    }
    assertEquals(ids, seen);
    assertEquals(0, before.get("snapshots").get(0).get("referenced_bytes").asLong(), "the first references nothing");
    assertTrue(before.get("snapshots").get(3).get("referenced_bytes").asLong() > 0, "the last shares its base's files");
    assertEquals("published", before.get("snapshots").get(3).get("state").asText());
    assertEquals(listed, before.get("listed_bytes").asLong(), "every file is some snapshot's own, counted once");
    assertEquals(before.get("listed_bytes").asLong() + before.get("record_bytes").asLong()
        + before.get("unlisted_bytes").asLong(), before.get("stored_bytes").asLong());
    assertEquals(3, before.get("gc").get("keep").asInt(), "the default --keep");

    JsonNode plan = du(root, options, "--keep", "1");
    assertEquals(List.of(ids.get(0), ids.get(1)), strings(plan.get("gc").get("expired")));
    List<String> args = new ArrayList<>(List.of("snapshots", "gc", "--keep", "1", "--json", "--snapshots", root));
    args.addAll(options);
    CliRun gc = CliRun.of(args.toArray(String[]::new));
    assertEquals(0, gc.exitCode(), gc.err());
    JsonNode after = du(root, options);
    long markers = 0;
    for (JsonNode u : after.get("unfinished")) {
      assertEquals("retired", u.get("state").asText());
      markers += store.storage().size(SnapshotLayout.stagingKey(u.get("id").asText()));
    }
    assertEquals(plan.get("stored_bytes").asLong() - plan.get("gc").get("freed_bytes").asLong() + markers,
        after.get("stored_bytes").asLong(), gc.out());
    for (String id : store.list()) {
      assertEquals(List.of(), store.verify(store.manifest(id)), id);
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  /** Bytes of the distinct files (inodes) under {@code snapshots/}. */
  private static long bytesOnDisk(Path root) throws Exception {
    List<Object> seen = new ArrayList<>();
    long bytes = 0;
    try (Stream<Path> files = Files.walk(root.resolve(SnapshotLayout.SNAPSHOTS))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Object key = Files.readAttributes(f, BasicFileAttributes.class).fileKey();
        if (!seen.contains(key)) {
          seen.add(key);
          bytes += Files.size(f);
        }
      }
    }
    return bytes;
  }
}
