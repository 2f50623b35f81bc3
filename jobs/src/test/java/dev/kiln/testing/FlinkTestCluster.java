package dev.kiln.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.client.ClientUtils;
import org.apache.flink.client.deployment.executors.RemoteExecutor;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;

/**
 * A real Flink cluster for tests: a JobManager ({@code StandaloneSessionClusterEntrypoint}) and
 * TaskManagers ({@code TaskManagerRunner}) as separate JVMs on 127.0.0.1, on Flink's own classpath
 * without Kiln (Kiln arrives in the job jar, as with {@code flink run}). TaskManagers can be started
 * later, with JVM flags of their own, and killed ({@code kill -9}) one by one.
 */
public final class FlinkTestCluster implements AutoCloseable {
  private final Path work;
  private final Path conf;
  private final String classpath;
  private final int rpcPort;
  private final int restPort;
  private final List<String> tmJvm;
  private final List<String> tmDynamic;
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final Set<String> killed = new HashSet<>();

  /**
   * Writes the configuration and starts the JobManager.
   *
   * @param extra further {@code config.yaml} lines (heartbeats, slots, memory), each replacing a default
   *     line of the same key
   */
  public FlinkTestCluster(Path work, List<String> extra) throws Exception {
    this(work, extra, "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", List.of(), List.of());
  }

  /**
   * An application cluster: the JobManager is Flink's {@code StandaloneApplicationClusterEntryPoint}
   * running {@code jobClass} of {@code jar} with {@code args} (the official image's {@code
   * standalone-job}); it exits when the application ends, with its outcome as exit status
   * ({@link #awaitExit}).
   */
  public static FlinkTestCluster application(Path work, List<String> extra, Path jar, String jobClass,
      List<String> args) throws Exception {
    List<String> lines = new ArrayList<>(extra);
    // Where the entry point copies the job jar before it runs it (Flink's default is /opt/flink/artifacts).
    lines.add("user.artifacts.base-dir: " + Files.createDirectories(work.resolve("artifacts")));
    List<String> entry = new ArrayList<>(List.of("--job-classname", jobClass, "--jars", jar.toAbsolutePath().toString()));
    // Flink's parser matches long options by prefix ('--config' would be its '--configDir'): the job's
    // arguments follow '--', which ends the entry point's options.
    entry.add("--");
    entry.addAll(args);
    // This JobManager runs the job's main() and builds its job graph, as a client does: it needs the module
    // opening that a Flink distribution's env.java.opts.all gives every Flink JVM (the official image has it).
    return new FlinkTestCluster(work, lines, "org.apache.flink.container.entrypoint.StandaloneApplicationClusterEntryPoint",
        entry, List.of("--add-opens", "java.base/java.util=ALL-UNNAMED"));
  }

  private FlinkTestCluster(Path work, List<String> extra, String entryPoint, List<String> entryArgs,
      List<String> jmFlags) throws Exception {
    this.work = work;
    this.conf = Files.createDirectories(work.resolve("conf"));
    int[] ports = FreePorts.pick(2);
    this.rpcPort = ports[0];
    this.restPort = ports[1];
    List<String> lines = new ArrayList<>(List.of(
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
        "io.tmp.dirs: " + Files.createDirectories(work.resolve("tmp"))));
    for (String e : extra) {
      // A line for a key set above replaces it (YAML refuses a key twice).
      String key = e.substring(0, e.indexOf(':') + 1);
      lines.removeIf(l -> l.startsWith(key));
      lines.add(e);
    }
    lines.add("");
    Files.writeString(conf.resolve("config.yaml"), String.join("\n", lines));
    Files.writeString(conf.resolve("log4j.properties"), String.join("\n",
        "rootLogger.level = INFO", "rootLogger.appenderRef.f.ref = F",
        "appender.f.type = File", "appender.f.name = F", "appender.f.fileName = ${sys:log.file}",
        "appender.f.layout.type = PatternLayout", "appender.f.layout.pattern = %d %-5p %c{1} - %m%n", ""));
    this.classpath = Files.readString(Path.of("target", "flink-cluster-classpath.txt")).trim();
    if (classpath.contains("kiln-")) {
      throw new AssertionError("the cluster must not see Kiln's classes except through the job jar");
    }
    // What Flink's jobmanager.sh / taskmanager.sh compute with BashJavaUtils: JVM memory flags, and for
    // TaskManagers the derived memory and CPU settings as dynamic properties.
    Configuration flinkConf = GlobalConfiguration.loadConfiguration(conf.toString());
    JobManagerProcessSpec jm = JobManagerProcessUtils.processSpecFromConfig(flinkConf);
    TaskExecutorProcessSpec tm = TaskExecutorProcessUtils.processSpecFromConfig(flinkConf);
    this.tmJvm = split(ProcessMemoryUtils.generateJvmParametersStr(tm));
    this.tmDynamic = split(TaskExecutorProcessUtils.generateDynamicConfigsStr(tm));
    List<String> jmJvm = new ArrayList<>(split(JobManagerProcessUtils.generateJvmParametersStr(jm, flinkConf)));
    jmJvm.addAll(jmFlags);
    start("jobmanager", entryPoint, jmJvm, entryArgs);
  }

  /** Starts a TaskManager JVM named {@code name} with extra JVM flags (system properties, say). */
  public void startTaskManager(String name, List<String> jvmFlags) throws IOException {
    startTaskManager(name, jvmFlags, List.of(), List.of());
  }

  /**
   * Starts a TaskManager JVM with extra JVM flags, {@code lib} on its class path as if in Flink's
   * {@code lib/}, and {@code config} ({@code key=value}) as dynamic properties over {@code config.yaml}.
   */
  public void startTaskManager(String name, List<String> jvmFlags, List<Path> lib, List<String> config)
      throws IOException {
    startTaskManager(name, jvmFlags, lib, config, Map.of());
  }

  /**
   * {@link #startTaskManager(String, List, List, List)} with environment variables of its own
   * ({@code FLINK_PLUGINS_DIR}, say: where a TaskManager finds its plugins, as Flink's scripts set it).
   */
  public void startTaskManager(String name, List<String> jvmFlags, List<Path> lib, List<String> config,
      Map<String, String> env) throws IOException {
    List<String> jvm = new ArrayList<>(tmJvm);
    jvm.addAll(jvmFlags);
    List<String> dynamic = new ArrayList<>(tmDynamic);
    for (String c : config) {
      dynamic.add("-D");
      dynamic.add(c);
    }
    StringBuilder cp = new StringBuilder(classpath);
    for (Path jar : lib) {
      cp.append(File.pathSeparatorChar).append(jar.toAbsolutePath());
    }
    start(name, "org.apache.flink.runtime.taskexecutor.TaskManagerRunner", jvm, dynamic, cp.toString(), env);
  }

  /**
   * What {@code mvn package} puts in {@code target/flink-lib/} for a TaskManager's {@code lib/}, so that
   * any number of Kiln builds share one copy of the native libraries (docs/DEPLOYMENT.md, "Several builds on
   * one TaskManager").
   */
  public static List<Path> sharedNativesLib() throws IOException {
    Path dir = Path.of("target", "flink-lib");
    if (!Files.isDirectory(dir)) {
      throw new AssertionError("target/flink-lib/ is missing: build with 'mvn verify'");
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
    }
  }

  /**
   * Lets a process paused at a {@code PausePoint} with {@code -Dkiln.test.pause-resume=stdin} go on (a line
   * on its standard input).
   */
  public void resume(String name) throws IOException {
    processes.get(name).getOutputStream().write('\n');
    processes.get(name).getOutputStream().flush();
  }

  /** The JVM's process id of a process this cluster started, for {@code jcmd}. */
  public long pid(String name) {
    return processes.get(name).pid();
  }

  /** {@code kill -9} of one process; returns once it is gone. */
  public void kill(String name) throws InterruptedException {
    killed.add(name);
    processes.get(name).destroyForcibly().waitFor();
  }

  /** The client configuration a {@code flink run} against this cluster would use (attached). */
  public Configuration client() {
    Configuration client = new Configuration();
    client.set(RestOptions.ADDRESS, "127.0.0.1");
    client.set(RestOptions.PORT, restPort);
    client.set(JobManagerOptions.ADDRESS, "127.0.0.1");
    client.set(JobManagerOptions.PORT, rpcPort);
    client.set(DeploymentOptions.TARGET, RemoteExecutor.NAME);
    client.set(DeploymentOptions.ATTACHED, true);
    return client;
  }

  /** Runs the job jar's main with {@code args} as {@code flink run} does, attached; returns when the job ends. */
  public void run(Path jar, String... args) throws Exception {
    run(client(), jar, args);
  }

  /** Runs the job jar's main as {@code flink run -d} does: returns once the job is submitted. */
  public void runDetached(Path jar, String... args) throws Exception {
    Configuration client = client();
    client.set(DeploymentOptions.ATTACHED, false);
    run(client, jar, args);
  }

  private static void run(Configuration client, Path jar, String... args) throws Exception {
    client.set(PipelineOptions.JARS, List.of(jar.toUri().toURL().toString()));
    PackagedProgram program = PackagedProgram.newBuilder().setJarFile(jar.toFile()).setArguments(args)
        .setConfiguration(client).build();
    try {
      ClientUtils.executeProgram(new DefaultExecutorServiceLoader(), client, program, false, false);
    } finally {
      program.close();
    }
  }

  /** The shaded job jar under {@code target/}. */
  public static Path jobJar() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("target"))) {
      return s.filter(p -> p.getFileName().toString().matches("kiln-jobs-.*-flink\\.jar")).findFirst()
          .orElseThrow(() -> new AssertionError("target/kiln-jobs-*-flink.jar is missing: build with 'mvn verify'"
              + " (not -Dkiln.shade.skip=true)"));
    }
  }

  /** GET of the REST API, as JSON. */
  public JsonNode rest(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + restPort + path)).build(), HttpResponse.BodyHandlers.ofString());
    return new ObjectMapper().readTree(r.body());
  }

  /**
   * Waits until a job's details say {@code state}. The REST handlers of one job's details (state, vertices,
   * exceptions) share a cache of its execution graph kept for web.refresh-interval (3 s); a client that polled
   * the job's accumulators (the build's progress) may have filled it while the job was still running or failing.
   */
  public void awaitJobDetails(String jid, String state, int timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    String seen;
    while (!(seen = rest("/jobs/" + jid).path("state").asText()).equals(state)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("job " + jid + "'s details still say " + seen + " after " + timeoutSeconds + " s");
      }
      Thread.sleep(250);
    }
  }

  /** Polls the REST endpoint until {@code expected} TaskManagers have registered. */
  public void awaitTaskManagers(int expected, int timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    while (true) {
      for (Map.Entry<String, Process> p : processes.entrySet()) {
        if (!p.getValue().isAlive() && !killed.contains(p.getKey())) {
          throw new AssertionError(p.getKey() + " exited with " + p.getValue().exitValue() + ": " + logs());
        }
      }
      try {
        if (rest("/overview").path("taskmanagers").asInt() >= expected) {
          return;
        }
      } catch (IOException notUpYet) {
        // the JobManager's REST endpoint is not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the cluster did not come up with " + expected + " TaskManagers: " + logs());
      }
      Thread.sleep(250); // polling the REST API for a condition
    }
  }

  /** The cluster's configuration directory ({@code FLINK_CONF_DIR} for a client of it). */
  public Path confDir() {
    return conf;
  }

  /** The jars of the cluster's class path: what a Flink distribution's {@code lib/} holds for it. */
  public List<Path> flinkClasspath() {
    return Arrays.stream(classpath.split(File.pathSeparator)).filter(s -> !s.isBlank()).map(Path::of).toList();
  }

  /** Waits for process {@code name} to exit and returns its exit status; fails with the logs after {@code timeoutSeconds}. */
  public int awaitExit(String name, long timeoutSeconds) throws Exception {
    Process p = processes.get(name);
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      throw new AssertionError(name + " did not exit within " + timeoutSeconds + " s: " + logs());
    }
    return p.exitValue();
  }

  /** The tail of every process's log, for failure messages. */
  public String logs() throws IOException {
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

  private void start(String name, String mainClass, List<String> jvm, List<String> dynamic) throws IOException {
    start(name, mainClass, jvm, dynamic, classpath, Map.of());
  }

  private void start(String name, String mainClass, List<String> jvm, List<String> dynamic, String cp,
      Map<String, String> env) throws IOException {
    Path log = work.resolve(name + ".log");
    List<String> flags = new ArrayList<>(jvm);
    flags.add("-Dlog.file=" + log);
    flags.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties"));
    List<String> cmd = new ArrayList<>(KilnProcess.javaCommand(mainClass, flags));
    cmd.remove("-Xmx1g"); // Flink's own memory flags (in jvm) size these JVMs
    // javaCommand puts the test classpath last but one: swap in Flink's own.
    cmd.set(cmd.size() - 2, cp);
    cmd.add("--configDir");
    cmd.add(conf.toString());
    cmd.addAll(dynamic);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(work.resolve(name + ".out").toFile());
    pb.environment().putAll(env);
    processes.put(name, pb.start());
  }

  private static List<String> split(String args) {
    return args.isBlank() ? List.of() : List.of(args.trim().split("\\s+"));
  }

  @Override
  public void close() throws InterruptedException {
    for (Process p : processes.values()) {
      p.destroyForcibly().waitFor();
    }
  }
}
