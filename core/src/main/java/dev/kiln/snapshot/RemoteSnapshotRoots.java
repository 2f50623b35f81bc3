package dev.kiln.snapshot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Remote snapshots roots ({@code s3://…}, {@code hdfs://…}) as a reader opens them: one snapshot
 * downloaded and verified into a local copy with the same layout. A {@link ServiceLoader} service that
 * {@code kiln-storage} provides, so that the searcher opens a remote root when that module is on the
 * classpath, and an application that reads only local snapshots does without it (and without the AWS
 * SDK and the Hadoop client that come with it).
 */
public interface RemoteSnapshotRoots {
  /** Whether a snapshots root or corpus names a non-local file system ({@code s3://}, {@code hdfs://}). */
  static boolean isRemote(String uri) {
    int colon = uri.indexOf("://");
    if (colon <= 1) {
      return false;
    }
    String scheme = uri.substring(0, colon);
    return !scheme.equals("file") && scheme.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '+' || c == '-' || c == '.');
  }

  /** The implementation on the classpath, if any (none without {@code kiln-storage}). */
  static Optional<RemoteSnapshotRoots> installed() {
    return ServiceLoader.load(RemoteSnapshotRoots.class, RemoteSnapshotRoots.class.getClassLoader()).findFirst();
  }

  /**
   * Downloads a published snapshot of a remote root ({@code id}, or the one {@code CURRENT} names when
   * null) into its local mirror, checking every file against the manifest, and returns the local root.
   *
   * @param settings file system settings over the environment's ({@code s3.endpoint}, {@code fs.*}, …)
   */
  Path localize(String remoteRoot, Map<String, String> settings, String id) throws IOException;

  /**
   * As {@link #localize(String, Map, String)}, but only what a searcher of {@code shards} reads: their
   * files and their parts of the parents docstore. A selection of some shards gets a local copy of its
   * own (the shared mirror keeps whole snapshots, which builds continue from), so a process holding a
   * shard group downloads and keeps that group's share only.
   */
  default Path localize(String remoteRoot, Map<String, String> settings, String id, ShardFilter shards)
      throws IOException {
    if (!shards.all()) {
      throw new UnsupportedOperationException(getClass().getName() + " cannot localize a shard group");
    }
    return localize(remoteRoot, settings, id);
  }
}
