package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.FlinkTestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar on a real Flink cluster: a JobManager ({@code StandaloneSessionClusterEntrypoint}) and
 * two TaskManagers ({@code TaskManagerRunner}) run as separate JVMs on 127.0.0.1, on Flink's own
 * classpath without Kiln; the shaded {@code kiln-jobs-*-flink.jar} is submitted the way
 * {@code flink run} does it ({@link PackagedProgram} + the remote executor, i.e. {@link RestClusterClient}).
 * The snapshot it publishes must match one built on the embedded mini-cluster.
 */
class FlinkClusterITCase {
  private static final String[] QUERIES = {
      "sourdough starter lactobacilli", "why does the sea level go up and down each day",
      "stratovolcanoes viscous magma", "which birds keep their eggs warm on their feet in the polar night"};

  @TempDir static Path work;
  static FlinkTestCluster cluster;
  static long clusterStartMillis;

  @BeforeAll
  static void startCluster() throws Exception {
    long t0 = System.currentTimeMillis();
    cluster = new FlinkTestCluster(work, List.of());
    cluster.startTaskManager("taskmanager-1", List.of());
    cluster.startTaskManager("taskmanager-2", List.of());
    cluster.awaitTaskManagers(2, 120);
    clusterStartMillis = System.currentTimeMillis() - t0;
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  private static Path config(Path root) throws Exception {
    Path fixture = Path.of(FlinkClusterITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Path file = work.resolve(root.getFileName() + ".yaml");
    Files.writeString(file, String.join("\n",
        "corpus: [" + fixture + "]", "snapshots: " + root, "shards: 3", "parallelism: 2",
        "chunker: {size: 48, overlap: 8}", "index: {recall-probe-samples: 5}",
        // The fixture holds 2 bad lines in 11 on purpose; they must be quarantined, not fail the build.
        "ingest: {max-bad-fraction: 0.5}", ""));
    return file;
  }

  @Test
  void theJobJarOnARealClusterPublishesWhatTheMiniClusterPublishes() throws Exception {
    Path clusterRoot = work.resolve("cluster-snapshots");
    long t0 = System.currentTimeMillis();
    Path jar = FlinkTestCluster.jobJar();
    // As 'flink run' does: the jar travels with the job (the cluster has no Kiln classes of its own).
    try {
      cluster.run(jar, "--config", config(clusterRoot).toString());
    } catch (Exception e) {
      throw new AssertionError("the job failed on the cluster: " + e + cluster.logs(), e);
    }
    long clusterBuild = System.currentTimeMillis() - t0;

    try (RestClusterClient<StandaloneClusterId> rest = new RestClusterClient<>(cluster.client(),
        StandaloneClusterId.getInstance())) {
      Collection<JobStatusMessage> jobs = rest.listJobs().get();
      assertEquals(1, jobs.size(), jobs.toString());
      assertEquals(JobStatus.FINISHED, jobs.iterator().next().getJobState());
    }

    Path miniRoot = work.resolve("mini-snapshots");
    CliRun mini = CliRun.of("build", "--config", config(miniRoot).toString());
    assertEquals(0, mini.exitCode(), mini.err());

    SnapshotStore onCluster = new SnapshotStore(clusterRoot);
    SnapshotStore onMini = new SnapshotStore(miniRoot);
    Manifest a = onCluster.open(onCluster.currentId());
    Manifest b = onMini.open(onMini.currentId());
    assertEquals(3, a.shards().size());
    assertEquals(b.counters(), a.counters());
    for (int s = 0; s < 3; s++) {
      TreeSet<String> fromCluster = chunkIds(onCluster, a, s);
      assertEquals(chunkIds(onMini, b, s), fromCluster, "chunk ids of shard " + s);
      assertEquals(a.shards().get(s).chunks(), fromCluster.size());
    }
    try (Searcher sa = Searcher.open(clusterRoot); Searcher sb = Searcher.open(miniRoot)) {
      for (String q : QUERIES) {
        for (SearchMode mode : SearchMode.values()) {
          assertEquals(top(sb, q, mode), top(sa, q, mode), mode + " top 3 for '" + q + "'");
        }
      }
    }
    System.out.printf("cluster start %.1f s, build on the cluster %.1f s%n", clusterStartMillis / 1000.0,
        clusterBuild / 1000.0);
  }

  /** Chunk ids of one shard of a snapshot, read from its Lucene index (also used by the failover test). */
  static TreeSet<String> chunkIds(SnapshotStore store, Manifest m, int shard) throws IOException {
    TreeSet<String> ids = new TreeSet<>();
    Path dir = store.layout().snapshotDir(m.id()).resolve(m.shards().get(shard).directory());
    try (FSDirectory d = FSDirectory.open(dir); DirectoryReader r = DirectoryReader.open(d)) {
      StoredFields fields = r.storedFields();
      for (int i = 0; i < r.maxDoc(); i++) {
        ids.add(fields.document(i).get(ShardSchema.CHUNK_ID));
      }
    }
    return ids;
  }

  static List<String> top(Searcher s, String q, SearchMode mode) {
    List<SearchHit> hits = s.search(q, mode, 3).results();
    assertTrue(hits.size() > 0, q);
    return hits.stream().map(SearchHit::chunkId).toList();
  }
}
