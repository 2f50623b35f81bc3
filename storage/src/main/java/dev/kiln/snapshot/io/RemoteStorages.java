package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import java.util.Map;

/** The {@link SnapshotStorage} behind a remote snapshots root. */
public final class RemoteStorages {
  private RemoteStorages() {}

  /**
   * {@code s3://} (and {@code s3a://}, {@code s3p://}) roots get {@link S3SnapshotStorage} with its
   * conditional PUT; any other remote scheme goes through the Hadoop client
   * ({@link HadoopSnapshotStorage}: a lock file around read-compare-write).
   *
   * @param settings the build's {@code filesystem:} settings (S3 keys as the Flink plugin reads them,
   *     Hadoop keys as {@link HadoopSettings} reads them)
   */
  public static SnapshotStorage open(String root, Map<String, String> settings) {
    return S3Settings.isS3(root) ? S3SnapshotStorage.open(root, S3Settings.of(settings)) : new HadoopSnapshotStorage(root, settings);
  }

  /**
   * A store over a remote root. Its layout is the local mirror's ({@link RemoteRoots#localMirror}),
   * where shard files are downloaded to be opened or verified.
   */
  public static SnapshotStore store(String root, Map<String, String> settings) {
    return new SnapshotStore(new SnapshotLayout(RemoteRoots.localMirror(root)), open(root, settings));
  }
}
