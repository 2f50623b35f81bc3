package dev.kiln.publish;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Makes a snapshot visible. Order matters: shard files are already durable; the manifest is written
 * next (to a temporary name, synced, then renamed), and {@code CURRENT} is replaced last by an atomic
 * rename. A crash at any point leaves {@code CURRENT} naming the previous, complete snapshot.
 * This is where a snapshot is published.
 */
public final class SnapshotPublisher {
  private final SnapshotLayout layout;

  public SnapshotPublisher(SnapshotLayout layout) {
    this.layout = layout;
  }

  /** Writes the manifest of a snapshot whose shard files are complete. */
  public void writeManifest(Manifest manifest) {
    try {
      byte[] json = SnapshotStore.json().writeValueAsBytes(manifest);
      writeAtomically(layout.manifest(manifest.id()), json);
    } catch (IOException e) {
      throw new SnapshotException("cannot write the manifest of " + manifest.id() + ": " + e.getMessage(), e);
    }
  }

  /** Points {@code CURRENT} at a snapshot that has a manifest. */
  public void publish(String snapshotId) {
    if (!Files.isRegularFile(layout.manifest(snapshotId))) {
      throw new SnapshotException("cannot publish " + snapshotId + ": it has no manifest");
    }
    try {
      writeAtomically(layout.current(), (snapshotId + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new SnapshotException("cannot publish " + snapshotId + ": " + e.getMessage(), e);
    }
  }

  static void writeAtomically(Path target, byte[] bytes) throws IOException {
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp-" + ProcessHandle.current().pid());
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(java.nio.ByteBuffer.wrap(bytes));
      ch.force(true);
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    fsyncDirectory(target.getParent());
  }

  private static void fsyncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems cannot sync a directory; the rename itself is still atomic there.
    }
  }
}
