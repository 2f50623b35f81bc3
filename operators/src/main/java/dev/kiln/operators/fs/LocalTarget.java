package dev.kiln.operators.fs;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.nio.file.Path;

/**
 * A snapshots root on a disk the client and every task reach at the same path: writers write in place,
 * and a base snapshot's shards are already where a continuing writer looks for them.
 */
public record LocalTarget(String root) implements SnapshotsTarget {
  private static final long serialVersionUID = 1L;

  @Override
  public SnapshotLayout localLayout() {
    return new SnapshotLayout(Path.of(root));
  }

  @Override
  public SnapshotStore store() {
    return new SnapshotStore(localLayout().root());
  }

  @Override
  public String dir(String key) {
    return localLayout().root().resolve(relative(key)).toString();
  }

  @Override
  public String uri(String key) {
    return localLayout().root().resolve(relative(key)).toAbsolutePath().toUri().toString();
  }

  @Override
  public WriterStaging staging(String snapshotId, String purpose, int subtask) {
    return WriterStaging.inPlace(localLayout());
  }

  @Override
  public BaseFiles base(Manifest base) {
    return new BaseFiles.InPlace(base.id());
  }

  @Override
  public Manifest continuableBase(SnapshotStore store, String base, boolean everyByte) {
    return everyByte ? store.open(base) : store.openForServing(base).manifest();
  }

  @Override
  public boolean remote() {
    return false;
  }

  static String relative(String key) {
    return key.replaceAll("/+$", "");
  }
}
