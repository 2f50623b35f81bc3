package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStorageContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage contract on {@link FlinkSnapshotStorage} (the storage of {@code hdfs://} and other Flink
 * roots) over Flink's {@code file://} file system; {@code HdfsSnapshotStorageContractITCase} runs it
 * on a real HDFS.
 */
class FlinkSnapshotStorageContractTest extends SnapshotStorageContract {
  @TempDir Path dir;

  @Override
  protected SnapshotStorage open(String rootName) {
    return new FlinkSnapshotStorage(dir.resolve(rootName).toUri().toString());
  }
}
