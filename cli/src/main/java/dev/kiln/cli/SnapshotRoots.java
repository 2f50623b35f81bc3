package dev.kiln.cli;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.search.http.SnapshotSource;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.S3Settings;
import dev.kiln.snapshot.io.SnapshotMirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns a {@code --snapshots} argument into a local root the searcher can open. */
final class SnapshotRoots {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotRoots.class);
  private static final String WHERE = "(AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in the environment, or the "
      + "'filesystem:' section of --config FILE; not --fs, which other users can see in the process list)";
  private static final List<String> ACCESS_KEYS = List.of("s3.access-key", "s3.access.key",
      "presto.s3.access-key", "presto.s3.access.key");
  private static final List<String> SECRET_KEYS = List.of("s3.secret-key", "s3.secret.key",
      "presto.s3.secret-key", "presto.s3.secret.key");

  private SnapshotRoots() {}

  /** A local root as is; a remote one ({@code s3://…}, {@code hdfs://…}) downloaded, the snapshot {@code id} or CURRENT's. */
  static Path local(String root, String id, FileSystemOptions fs) throws IOException {
    if (!RemoteRoots.isRemote(root)) {
      checkLocal(fs);
      return Path.of(root);
    }
    Map<String, String> settings = fs.settings();
    prepare(root, settings);
    try {
      return SnapshotMirror.of(root, settings).localize(id);
    } catch (IOException | RuntimeException e) {
      throw failure(root, e);
    }
  }

  /**
   * What {@code kiln serve} follows: a local root as is, a remote one through a serving cache of this
   * process's own ({@link RemoteRoots#claimServeCache}, released at exit).
   */
  static SnapshotSource source(String root, FileSystemOptions fs) throws IOException {
    if (!RemoteRoots.isRemote(root)) {
      checkLocal(fs);
      return SnapshotSource.local(Path.of(root));
    }
    Map<String, String> settings = fs.settings();
    prepare(root, settings);
    RemoteRoots.ServeCache cache = RemoteRoots.claimServeCache(root);
    LOG.info("serving {} through the local copy {}", root, cache.dir());
    return new RemoteSnapshotSource(new SnapshotMirror(RemoteStorages.open(root, settings), root, cache.dir()), root,
        cache);
  }

  /** A local root uses no file system setting, but a wrong one given on the command line still fails. */
  private static void checkLocal(FileSystemOptions fs) {
    if (fs.given()) {
      fs.settings();
    }
  }

  /** A remote root's failure as the user should read it: refused credentials name the settings. */
  static RuntimeException failure(String root, Exception e) {
    if (e instanceof ConfigException ce) {
      return ce;
    }
    String cause = Kiln.describe(e);
    // Checked before passing a SnapshotException on: the storage reports a refused read as one.
    if (isS3(root) && refused(e)) {
      return new ConfigException("the S3 server refused the credentials for " + root + " (" + cause
          + "): check s3.access-key and s3.secret-key " + WHERE, e);
    }
    if (e instanceof SnapshotException se) {
      return se;
    }
    return new SnapshotException("cannot read the snapshots root " + root + ": " + cause
        + " (file system settings: the 'filesystem:' section of --config FILE, or --fs KEY=VALUE)", e);
  }

  static boolean isS3(String root) {
    String scheme = root.substring(0, root.indexOf("://")).toLowerCase(Locale.ROOT);
    return scheme.equals("s3") || scheme.equals("s3a") || scheme.equals("s3p");
  }

  /**
   * Half a key pair is always a mistake. No keys at all is one only with a custom endpoint: on AWS the
   * plugin may still find instance or profile credentials, but an S3-compatible server has none of those.
   */
  static void checkS3Credentials(String root, Map<String, String> conf) {
    boolean access = ACCESS_KEYS.stream().anyMatch(conf::containsKey);
    boolean secret = SECRET_KEYS.stream().anyMatch(conf::containsKey);
    if (access && !secret) {
      throw new ConfigException("s3.access-key is set but s3.secret-key is not, for " + root + ": set s3.secret-key " + WHERE);
    }
    if (secret && !access) {
      throw new ConfigException("s3.secret-key is set but s3.access-key is not, for " + root + ": set s3.access-key " + WHERE);
    }
    if (!access && conf.containsKey("s3.endpoint")) {
      throw new ConfigException("no S3 credentials for " + root + " at endpoint " + conf.get("s3.endpoint")
          + ": set s3.access-key and s3.secret-key " + WHERE);
    }
  }

  /** Whether the server answered that the request was not authorised (HTTP 403 and its S3 error codes). */
  private static boolean refused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.contains("403") || m.contains("Forbidden") || m.contains("Access Denied") || m.contains("AccessDenied")
          || m.contains("SignatureDoesNotMatch") || m.contains("InvalidAccessKeyId")) {
        return true;
      }
    }
    return false;
  }

  /** The settings for the log, with every secret-looking value hidden. */
  static Map<String, String> masked(Map<String, String> settings) {
    Map<String, String> out = new TreeMap<>();
    settings.forEach((k, v) -> out.put(k, BuildConfig.isSecret(k) ? "****" : v));
    return out;

  }

  /** The store of a snapshots root: local, or remote through its storage (S3: conditional PUT). */
  static SnapshotStore store(String root, Map<String, String> settings) {
    if (!RemoteRoots.isRemote(root)) {
      return new SnapshotStore(Path.of(root));
    }
    prepare(root, settings);
    return RemoteStorages.store(root, settings);
  }

  private static void prepare(String root, Map<String, String> settings) {
    Map<String, String> conf = S3Settings.merged(settings);
    LOG.info("file system settings for {}: {}", root, masked(conf));
    if (isS3(root)) {
      checkS3Credentials(root, conf);
    }
  }
}
