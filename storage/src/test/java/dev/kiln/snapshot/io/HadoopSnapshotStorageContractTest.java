package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStorageContract;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage contract on {@link HadoopSnapshotStorage} (the storage of {@code hdfs://} and other Hadoop
 * roots) over Hadoop's raw local {@code file://} file system; {@code HdfsSnapshotStorageContractITCase} runs it
 * on a real HDFS.
 */
class HadoopSnapshotStorageContractTest extends SnapshotStorageContract {
  @TempDir Path dir;

  @Override
  protected SnapshotStorage open(String rootName) {
    return new HadoopSnapshotStorage(dir.resolve(rootName).toUri().toString(), Map.of());
  }
}
