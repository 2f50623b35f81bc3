package dev.kiln.jobs;

import dev.kiln.operators.fs.FlinkFileSystems;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.RemoteStorages;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The build's snapshots root, resolved once at the start and passed down (to the job's stages and
 * inside the commit plan) instead of every class asking whether the root is remote: where the job
 * writes, the client's local view of it (the root itself, or the local mirror of a remote root), the
 * storage the snapshot protocol runs over, and where a key of the root lives for Flink's file systems.
 */
public final class SnapshotsTarget implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String root;
  private final boolean remote;
  private final HashMap<String, String> filesystem;

  private SnapshotsTarget(String root, boolean remote, Map<String, String> filesystem) {
    this.root = root;
    this.remote = remote;
    this.filesystem = new HashMap<>(filesystem);
  }

  /** The target of a {@code snapshots} setting, with the build's {@code filesystem:} settings. */
  public static SnapshotsTarget of(String snapshots, Map<String, String> filesystem) {
    return new SnapshotsTarget(snapshots, FlinkFileSystems.isRemote(snapshots), filesystem);
  }

  /** Whether the root is remote ({@code s3://}, {@code hdfs://}): published through its storage, verified from the mirror. */
  public boolean remote() {
    return remote;
  }

  /** The root as the user gave it. */
  public String root() {
    return root;
  }

  /** The client's local view: the root itself, or the local mirror of a remote root. */
  public SnapshotLayout localLayout() {
    return new SnapshotLayout(remote ? RemoteRoots.localMirror(root) : Path.of(root));
  }

  /** The root the job's writers write under: the remote URI, or the local directory. */
  public String writeRoot() {
    return remote ? root : localLayout().root().toString();
  }

  /** The store the snapshot protocol runs over (on S3 with conditional PUT). */
  public SnapshotStore store() {
    return remote ? RemoteStorages.store(root, filesystem) : new SnapshotStore(localLayout().root());
  }

  /**
   * Where {@code key} (a {@link SnapshotLayout} key, or a name under the root) lives for Flink's file
   * systems: a URI under a remote root, a path under a local one.
   */
  public String dir(String key) {
    String relative = key.replaceAll("/+$", "");
    return remote ? new org.apache.flink.core.fs.Path(root, relative).toString()
        : localLayout().root().resolve(relative).toString();
  }

  /** As {@link #dir}, but a local root's as an absolute {@code file:} URI. */
  public String uri(String key) {
    String relative = key.replaceAll("/+$", "");
    return remote ? dir(key) : localLayout().root().resolve(relative).toAbsolutePath().toUri().toString();
  }
}
