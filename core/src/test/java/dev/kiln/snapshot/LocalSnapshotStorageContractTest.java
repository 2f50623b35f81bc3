package dev.kiln.snapshot;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The storage contract on {@link LocalSnapshotStorage}, the default for local snapshots roots. */
class LocalSnapshotStorageContractTest extends SnapshotStorageContract {
  @TempDir Path dir;

  @Override
  protected SnapshotStorage open(String rootName) {
    return new LocalSnapshotStorage(dir.resolve(rootName));
  }
}
