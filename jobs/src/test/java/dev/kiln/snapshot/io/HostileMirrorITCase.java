package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.S3Server;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bucket an attacker can write to (a real S3 server, s3proxy on 127.0.0.1): manifests whose names
 * are absolute, climb with {@code ..} or hide {@code //} must make the local mirror refuse the
 * snapshot — never write, overwrite or delete a file outside its cache.
 */
class HostileMirrorITCase {
  private static final String BUCKET = "hostile";
  @TempDir static Path work;
  static S3Server server;

  @BeforeAll
  static void start() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static Manifest manifest(String id, String shardDir, String fileName, long size) {
    return new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-03T00:00:00Z", null,
        new Manifest.ModelInfo("m", 3, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, shardDir, 1, 1, List.of(new Manifest.FileEntry(fileName, size,
            "0".repeat(64))))));
  }

  @Test
  void hostileNamesNeverReachOutsideTheCache() throws Exception {
    Path victim = work.resolve("victim.txt");
    Files.writeString(victim, "precious");
    Path cache = work.resolve("cache");
    int n = 0;
    for (String[] attack : List.of(
        new String[] {"shard-00000", victim.toString()},                 // absolute: Path.resolve returns it as is
        new String[] {"shard-00000", "../../../../victim.txt"},
        new String[] {"shard-00000", "x//" + victim.getFileName()},
        new String[] {victim.getParent().toString(), "victim.txt"},       // an absolute shard directory
        new String[] {"../../..", "victim.txt"})) {
      String prefix = "r" + (n++) + "/snapshots";
      String root = "s3://" + BUCKET + "/" + prefix;
      String id = SnapshotLayout.newSnapshotId();
      // The object exists under the hostile key too, with the victim's size and other bytes, so that
      // the old mirror downloaded it over the victim and then deleted it on the checksum mismatch.
      try {
        server.put(prefix + "/" + SnapshotLayout.snapshotKey(id) + attack[0] + "/" + attack[1],
            "XXXXXXXX".getBytes(StandardCharsets.UTF_8));
      } catch (IllegalArgumentException refusedByTheBlobStore) {
        // s3proxy's file store refuses keys with "../": such an object cannot be planted, only named
      }
      server.put(prefix + "/" + SnapshotLayout.manifestKey(id),
          SnapshotStore.json().writeValueAsBytes(manifest(id, attack[0], attack[1], Files.size(victim))));
      server.put(prefix + "/CURRENT", (id + "\n").getBytes(StandardCharsets.UTF_8));
      SnapshotMirror mirror = new SnapshotMirror(RemoteStorages.open(root, server.settings()), root, cache);
      SnapshotException e = assertThrows(SnapshotException.class, () -> mirror.localize(null), String.join("/", attack));
      assertTrue(e.getMessage().contains("malformed"), e.getMessage());
      assertEquals("precious", Files.readString(victim), "the victim outside the cache is untouched");
      assertFalse(Files.exists(cache.resolve("CURRENT")), "nothing was localized");
    }
    try (var all = Files.walk(work)) {
      assertEquals(List.of(), all.filter(p -> p.getFileName().toString().equals("victim.txt") && !p.equals(victim)
          && !p.startsWith(work.resolve("blobs"))).toList(), "no file was planted outside the cache");
    }
  }

  @Test
  void aHugeRemoteCurrentIsRefusedWithoutDownloadingIt() throws Exception {
    String prefix = "huge/snapshots";
    server.put(prefix + "/CURRENT", new byte[64 * 1024]);
    String root = "s3://" + BUCKET + "/" + prefix;
    SnapshotMirror mirror = new SnapshotMirror(RemoteStorages.open(root, server.settings()), root,
        work.resolve("cache-huge"));
    SnapshotException e = assertThrows(SnapshotException.class, () -> mirror.localize(null));
    assertTrue(e.getMessage().contains("larger than " + SnapshotLayout.MAX_CURRENT_BYTES), e.getMessage());
  }
}
