package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.RemoteSnapshotRoots;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Serving caches: one per live server of a root, taken back once released, never the shared mirror. The
 * searcher's way to remote roots is this module's service.
 */
class RemoteRootsTest {
  @Test
  void thisModuleIsTheSearchersWayToRemoteRoots() {
    assertTrue(RemoteSnapshotRoots.installed().orElseThrow() instanceof MirroredRemoteRoots,
        "META-INF/services names the storage's implementation");
    assertTrue(RemoteSnapshotRoots.isRemote("s3://bucket/snapshots") && RemoteSnapshotRoots.isRemote("hdfs://nn:8020/k"));
    assertTrue(!RemoteSnapshotRoots.isRemote("file:///data/k") && !RemoteSnapshotRoots.isRemote("/data/k")
        && !RemoteSnapshotRoots.isRemote("C://data"), "a local path or file: URI is not remote");
  }

  @Test
  void eachServerOfARootGetsACacheOfItsOwnAndAReleasedOneIsReused() throws Exception {
    String root = "s3://bucket-" + UUID.randomUUID() + "/snapshots";
    try (RemoteRoots.ServeCache first = RemoteRoots.claimServeCache(root)) {
      assertTrue(first.dir().getFileName().toString().endsWith(".serve-1"), first.dir().toString());
      assertEquals(RemoteRoots.localMirror(root).getParent(), first.dir().getParent());
      assertNotEquals(RemoteRoots.localMirror(root), first.dir(), "builds verify into the shared mirror");
      try (RemoteRoots.ServeCache second = RemoteRoots.claimServeCache(root)) {
        assertTrue(second.dir().getFileName().toString().endsWith(".serve-2"), second.dir().toString());
      }
      try (RemoteRoots.ServeCache again = RemoteRoots.claimServeCache(root)) {
        assertTrue(again.dir().getFileName().toString().endsWith(".serve-2"), "released, so taken back: " + again.dir());
      }
    }
    try (RemoteRoots.ServeCache restarted = RemoteRoots.claimServeCache(root)) {
      assertTrue(restarted.dir().getFileName().toString().endsWith(".serve-1"), restarted.dir().toString());
    }
  }
}
