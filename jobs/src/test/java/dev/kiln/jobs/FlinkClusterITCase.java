package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.ClientUtils;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.deployment.executors.RemoteExecutor;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
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
  static final List<Process> cluster = new ArrayList<>();
  static Configuration client;
  static int restPort;
  static long clusterStartMillis;

  @BeforeAll
  static void startCluster() throws Exception {
    long t0 = System.currentTimeMillis();
    Path conf = Files.createDirectories(work.resolve("conf"));
    int rpcPort = freePort();
    restPort = freePort();
    Files.writeString(conf.resolve("config.yaml"), String.join("\n",
        "jobmanager.rpc.address: 127.0.0.1",
        "jobmanager.rpc.port: " + rpcPort,
        "jobmanager.bind-host: 127.0.0.1",
        "rest.address: 127.0.0.1",
        "rest.bind-address: 127.0.0.1",
        "rest.port: " + restPort,
        "taskmanager.host: 127.0.0.1",
        "taskmanager.bind-host: 127.0.0.1",
        "taskmanager.numberOfTaskSlots: 1",
        "jobmanager.memory.process.size: 768m",
        "taskmanager.memory.process.size: 1280m",
        "taskmanager.memory.managed.size: 32m",
        "taskmanager.memory.network.min: 128m",
        "taskmanager.memory.network.max: 128m",
        "io.tmp.dirs: " + Files.createDirectories(work.resolve("tmp")),
        ""));
    Files.writeString(conf.resolve("log4j.properties"), String.join("\n",
        "rootLogger.level = INFO", "rootLogger.appenderRef.f.ref = F",
        "appender.f.type = File", "appender.f.name = F", "appender.f.fileName = ${sys:log.file}",
        "appender.f.layout.type = PatternLayout", "appender.f.layout.pattern = %d %-5p %c{1} - %m%n", ""));
    String classpath = Files.readString(Path.of("target", "flink-cluster-classpath.txt")).trim();
    assertFalse(classpath.contains("kiln-"), "the cluster must not see Kiln's classes except through the job jar");
    // What Flink's jobmanager.sh / taskmanager.sh compute with BashJavaUtils: JVM memory flags, and for
    // TaskManagers the derived memory and CPU settings as dynamic properties.
    Configuration flinkConf = GlobalConfiguration.loadConfiguration(conf.toString());
    JobManagerProcessSpec jm = JobManagerProcessUtils.processSpecFromConfig(flinkConf);
    TaskExecutorProcessSpec tm = TaskExecutorProcessUtils.processSpecFromConfig(flinkConf);
    List<String> jmJvm = split(JobManagerProcessUtils.generateJvmParametersStr(jm, flinkConf));
    List<String> tmJvm = split(ProcessMemoryUtils.generateJvmParametersStr(tm));
    List<String> tmDynamic = split(TaskExecutorProcessUtils.generateDynamicConfigsStr(tm));
    cluster.add(startJvm("jobmanager", "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
        classpath, conf, jmJvm, List.of()));
    cluster.add(startJvm("taskmanager-1", "org.apache.flink.runtime.taskexecutor.TaskManagerRunner", classpath, conf,
        tmJvm, tmDynamic));
    cluster.add(startJvm("taskmanager-2", "org.apache.flink.runtime.taskexecutor.TaskManagerRunner", classpath, conf,
        tmJvm, tmDynamic));

    client = new Configuration();
    client.set(RestOptions.ADDRESS, "127.0.0.1");
    client.set(RestOptions.PORT, restPort);
    client.set(JobManagerOptions.ADDRESS, "127.0.0.1");
    client.set(JobManagerOptions.PORT, rpcPort);
    client.set(DeploymentOptions.TARGET, RemoteExecutor.NAME);
    client.set(DeploymentOptions.ATTACHED, true);
    awaitTaskManagers(2, 120);
    clusterStartMillis = System.currentTimeMillis() - t0;
  }

  @AfterAll
  static void stopCluster() throws Exception {
    for (Process p : cluster) {
      p.destroyForcibly().waitFor();
    }
  }

  private static List<String> split(String args) {
    return args.isBlank() ? List.of() : List.of(args.trim().split("\\s+"));
  }

  private static Process startJvm(String name, String mainClass, String classpath, Path conf, List<String> jvm,
      List<String> dynamic) throws IOException {
    Path log = work.resolve(name + ".log");
    List<String> flags = new ArrayList<>(jvm);
    flags.add("-Dlog.file=" + log);
    flags.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties"));
    List<String> cmd = new ArrayList<>(KilnProcess.javaCommand(mainClass, flags));
    cmd.remove("-Xmx1g"); // Flink's own memory flags (in jvm) size these JVMs
    // javaCommand puts the test classpath last but one: swap in Flink's own.
    cmd.set(cmd.size() - 2, classpath);
    cmd.add("--configDir");
    cmd.add(conf.toString());
    cmd.addAll(dynamic);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(work.resolve(name + ".out").toFile())
        .start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Polls the REST endpoint until the TaskManagers have registered; fails with the logs otherwise. */
  private static void awaitTaskManagers(int expected, int timeoutSeconds) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    while (true) {
      for (Process p : cluster) {
        if (!p.isAlive()) {
          throw new AssertionError("a cluster process exited with " + p.exitValue() + ": " + logs());
        }
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + restPort + "/overview")).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && new ObjectMapper().readTree(r.body()).path("taskmanagers").asInt() >= expected) {
          return;
        }
      } catch (IOException notUpYet) {
        // the JobManager's REST endpoint is not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the cluster did not come up with " + expected + " TaskManagers: " + logs());
      }
      Thread.sleep(250);
    }
  }

  private static String logs() throws IOException {
    StringBuilder b = new StringBuilder();
    try (Stream<Path> s = Files.list(work)) {
      for (Path p : s.filter(f -> f.toString().endsWith(".log") || f.toString().endsWith(".out")).toList()) {
        String text = Files.readString(p);
        b.append("\n--- ").append(p.getFileName()).append('\n')
            .append(text.substring(Math.max(0, text.length() - 3000)));
      }
    }
    return b.toString();
  }

  private static Path jobJar() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("target"))) {
      return s.filter(p -> p.getFileName().toString().matches("kiln-jobs-.*-flink\\.jar")).findFirst()
          .orElseThrow(() -> new AssertionError("target/kiln-jobs-*-flink.jar is missing: build with 'mvn verify'"
              + " (not -Dkiln.shade.skip=true)"));
    }
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
    Path jar = jobJar();
    // As 'flink run' does: the jar travels with the job (the cluster has no Kiln classes of its own).
    client.set(PipelineOptions.JARS, List.of(jar.toUri().toURL().toString()));
    PackagedProgram program = PackagedProgram.newBuilder()
        .setJarFile(jar.toFile())
        .setArguments("--config", config(clusterRoot).toString())
        .setConfiguration(client)
        .build();
    assertEquals(BuildJob.class.getName(), program.getMainClassName(), "the jar's manifest names the entry point");
    try {
      ClientUtils.executeProgram(new DefaultExecutorServiceLoader(), client, program, false, false);
    } catch (Exception e) {
      throw new AssertionError("the job failed on the cluster: " + e + logs(), e);
    } finally {
      program.close();
    }
    long clusterBuild = System.currentTimeMillis() - t0;

    try (RestClusterClient<StandaloneClusterId> rest = new RestClusterClient<>(client, StandaloneClusterId.getInstance())) {
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

  private static TreeSet<String> chunkIds(SnapshotStore store, Manifest m, int shard) throws IOException {
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

  private static List<String> top(Searcher s, String q, SearchMode mode) {
    List<SearchHit> hits = s.search(q, mode, 3).results();
    assertTrue(hits.size() > 0, q);
    return hits.stream().map(SearchHit::chunkId).toList();
  }
}
