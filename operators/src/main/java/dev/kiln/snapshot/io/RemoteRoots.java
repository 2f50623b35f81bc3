package dev.kiln.snapshot.io;

import java.nio.file.Path;

/** Where the local copy of a remote snapshots root lives. */
public final class RemoteRoots {
  private RemoteRoots() {}

  /**
   * A directory under the Kiln cache ({@code kiln.cache.dir}, else the temporary directory) named after
   * the remote root, so that repeated searches reuse what was downloaded.
   */
  public static Path localMirror(String remoteRoot) {
    String base = System.getProperty("kiln.cache.dir", System.getProperty("java.io.tmpdir"));
    String name = remoteRoot.replaceAll("[^A-Za-z0-9._-]+", "_");
    return Path.of(base, "remote-snapshots", name);
  }
}
