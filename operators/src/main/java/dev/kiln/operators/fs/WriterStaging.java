package dev.kiln.operators.fs;

import dev.kiln.snapshot.SnapshotLayout;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where a writer subtask's Lucene and docstore files are written, decided once from the snapshots
 * root: a local root is written in place; for a remote root ({@code s3://}, {@code hdfs://}) Lucene
 * still needs a local disk, so the files are written under a temporary directory of this subtask's
 * and each finished directory is uploaded to its key under the root. The four writers (shards and
 * parents, full and changelog builds) share this instead of each branching on the root.
 */
public final class WriterStaging implements Closeable {
  private final String snapshotsRoot;
  private final Path temporary;
  private final SnapshotLayout layout;

  private WriterStaging(String snapshotsRoot, Path temporary) {
    this.snapshotsRoot = snapshotsRoot;
    this.temporary = temporary;
    this.layout = new SnapshotLayout(temporary != null ? temporary : Path.of(snapshotsRoot));
  }

  /**
   * The staging of one writer subtask.
   *
   * @param purpose names the temporary directory of a remote root ({@code shards}, {@code parents}, …)
   */
  public static WriterStaging open(String snapshotsRoot, String snapshotId, String purpose, int subtask)
      throws IOException {
    return new WriterStaging(snapshotsRoot, FlinkFileSystems.isRemote(snapshotsRoot)
        ? Files.createTempDirectory("kiln-" + purpose + "-" + snapshotId + "-" + subtask + "-")
        : null);
  }

  /** Whether finished directories are uploaded (a remote root) rather than written in place. */
  public boolean remote() {
    return temporary != null;
  }

  /** The layout the writers write under: the root itself, or the temporary directory. */
  public SnapshotLayout layout() {
    return layout;
  }

  /**
   * Where a finished local directory now lives: uploaded to {@code key} (a {@link SnapshotLayout}
   * key such as {@link SnapshotLayout#shardKey}) under a remote root, or the directory itself.
   */
  public String publish(Path directory, String key) throws IOException {
    if (temporary == null) {
      return directory.toString();
    }
    String remote = new org.apache.flink.core.fs.Path(snapshotsRoot, key.replaceAll("/+$", "")).toString();
    RemoteFiles.uploadDir(directory, remote);
    return remote;
  }

  /** Removes the temporary directory (a remote root's); never throws, so that it cannot mask a failure. */
  @Override
  public void close() {
    if (temporary == null) {
      return;
    }
    try (Stream<Path> walk = Files.walk(temporary)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | RuntimeException e) {
      // a temporary directory left behind costs disk, not correctness
    }
  }
}
