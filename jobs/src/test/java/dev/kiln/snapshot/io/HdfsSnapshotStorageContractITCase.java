package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStorageContract;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage contract on {@link HadoopSnapshotStorage} over a real HDFS (a MiniDFSCluster bound to
 * 127.0.0.1), where compare-and-set rests on HDFS refusing a second exclusive create of the lock.
 */
class HdfsSnapshotStorageContractITCase extends SnapshotStorageContract {
  @TempDir static Path work;
  private static MiniDFSCluster cluster;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, work.resolve("dfs").toString());
    for (String key : List.of("dfs.namenode.rpc-address", "dfs.namenode.http-address", "dfs.datanode.address",
        "dfs.datanode.http.address", "dfs.datanode.ipc.address")) {
      conf.set(key, "127.0.0.1:0");
    }
    conf.setBoolean("dfs.permissions.enabled", false);
    cluster = new MiniDFSCluster.Builder(conf, work.resolve("dfs").toFile()).numDataNodes(1).format(true).build();
    cluster.waitActive();
    base = "hdfs://127.0.0.1:" + cluster.getNameNodePort();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  @Override
  protected SnapshotStorage open(String rootName) {
    return new HadoopSnapshotStorage(base + "/" + rootName, Map.of());
  }
}
