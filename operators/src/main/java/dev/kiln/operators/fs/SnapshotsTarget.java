package dev.kiln.operators.fs;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.io.Serializable;
import java.util.Map;

/**
 * A build's snapshots root, decided once in the client and shipped to the tasks as this value: a
 * directory on a disk every task can reach ({@link LocalTarget}) or a root on a remote file system
 * such as {@code s3://} or {@code hdfs://} ({@link RemoteTarget}). What differs between the two —
 * where the client's view of the root lives, which store runs the snapshot protocol, where a writer
 * puts Lucene's files and how they reach the root, how a base snapshot's files reach a writer — is a
 * method here, so the build's stages and planners never ask which kind of root they write to.
 */
public sealed interface SnapshotsTarget extends Serializable permits LocalTarget, RemoteTarget {

  /** The target of a {@code snapshots} setting, with the build's {@code filesystem:} settings. */
  static SnapshotsTarget of(String snapshots, Map<String, String> filesystem) {
    return FlinkFileSystems.isRemote(snapshots) ? new RemoteTarget(snapshots, filesystem) : new LocalTarget(snapshots);
  }

  /** The root as the user gave it. */
  String root();

  /** The client's local view: the root itself, or the local mirror of a remote root. */
  SnapshotLayout localLayout();

  /** The store the snapshot protocol runs over (on S3 with conditional PUT). */
  SnapshotStore store();

  /**
   * Where {@code key} (a {@link SnapshotLayout} key, or a name under the root) lives for Flink's file
   * systems: a URI under a remote root, a path under a local one.
   */
  String dir(String key);

  /** As {@link #dir}, but a local root's as an absolute {@code file:} URI. */
  String uri(String key);

  /**
   * Where one writer subtask writes: a local root in place; a remote root into a temporary directory
   * of the subtask's whose finished directories are uploaded.
   *
   * @param purpose names the temporary directory of a remote root ({@code shards}, {@code parents}, …)
   */
  WriterStaging staging(String snapshotId, String purpose, int subtask) throws IOException;

  /**
   * The files of base snapshot {@code base} (its manifest, checked) as a writer continuing it gets
   * them: in place under a local root, downloaded and verified from a remote one.
   */
  BaseFiles base(Manifest base);

  /**
   * The manifest of {@code base}, checked as a build must check a base it continues. A local root's is
   * opened as a searcher opens it (its {@code VERIFIED} record trusted), or with {@code everyByte} every
   * file hashed; a remote root's has every listed file present at its size, and the writers hash each
   * file they download of it, so nothing is downloaded here.
   */
  Manifest continuableBase(SnapshotStore store, String base, boolean everyByte);

  /**
   * Whether the root is remote. For messages and for decisions that depend on the kind of storage
   * itself (what the client can read without downloading), not for where files go: that is a method.
   */
  boolean remote();
}
