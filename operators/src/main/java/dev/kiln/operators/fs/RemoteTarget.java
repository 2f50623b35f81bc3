package dev.kiln.operators.fs;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.SnapshotVerifier;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.RemoteStorages;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.fs.Path;

/**
 * A snapshots root on a remote file system ({@code s3://}, {@code hdfs://}): the client verifies and
 * describes it through a local mirror and runs the snapshot protocol through the root's own storage;
 * writers write Lucene's files on a local disk and upload each finished directory; a continuing
 * writer downloads its base's files, verifying each against the base manifest.
 */
public final class RemoteTarget implements SnapshotsTarget {
  private static final long serialVersionUID = 1L;

  private final String root;
  private final HashMap<String, String> filesystem;

  RemoteTarget(String root, Map<String, String> filesystem) {
    this.root = root;
    this.filesystem = new HashMap<>(filesystem);
  }

  @Override
  public String root() {
    return root;
  }

  @Override
  public SnapshotLayout localLayout() {
    return new SnapshotLayout(RemoteRoots.localMirror(root));
  }

  @Override
  public SnapshotStore store() {
    return RemoteStorages.store(root, filesystem);
  }

  @Override
  public String dir(String key) {
    return new Path(root, LocalTarget.relative(key)).toString();
  }

  @Override
  public String uri(String key) {
    return dir(key);
  }

  @Override
  public WriterStaging staging(String snapshotId, String purpose, int subtask) throws IOException {
    return WriterStaging.uploading(root,
        Files.createTempDirectory("kiln-" + purpose + "-" + snapshotId + "-" + subtask + "-"));
  }

  @Override
  public BaseFiles base(Manifest base) {
    return RemoteBaseFiles.of(root, base);
  }

  @Override
  public Manifest continuableBase(SnapshotStore store, String base, boolean everyByte) {
    Manifest m = store.manifest(base);
    List<String> problems = new SnapshotVerifier(store.storage()).check(m, SnapshotVerifier.Scope.SERVING, false)
        .problems();
    if (!problems.isEmpty()) {
      throw new SnapshotException("base snapshot " + base + " cannot be continued: " + String.join("; ", problems));
    }
    return m;
  }

  @Override
  public boolean remote() {
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RemoteTarget t && t.root.equals(root) && t.filesystem.equals(filesystem);
  }

  @Override
  public int hashCode() {
    return root.hashCode();
  }

  @Override
  public String toString() {
    return "RemoteTarget[" + root + "]"; // the settings may hold keys: never printed
  }
}
