package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import dev.kiln.router.RouterConfig;
import dev.kiln.router.RouterServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kiln route}: one search API over shard groups ({@code kiln serve --shards}), answered exactly. */
@Command(name = "route", mixinStandardHelpOptions = true,
    description = "Fan each search out to one replica of every shard group and answer as one server over the"
        + " whole snapshot would.")
final class RouteCommand implements Callable<Integer> {
  @Option(names = "--group", paramLabel = "URL[,URL...]",
      description = "one shard group: the base URLs of its replicas (kiln serve --shards A-B), comma-separated;"
          + " repeat once per group")
  List<String> groups = new ArrayList<>();

  @Option(names = "--root", paramLabel = "URI",
      description = "search several snapshots roots as one (federated), as kiln serve --snapshots URI"
          + " --snapshots URI... does: name each root as the groups' --snapshots names it, in the same order;"
          + " each --group serves one of them")
  List<String> roots = new ArrayList<>();

  @Option(names = "--root-weight", paramLabel = "W",
      description = "with --root: each root's weight in the merge, in the same order (default: 1 each), as"
          + " kiln serve's --snapshots-weight")
  List<Double> rootWeights = new ArrayList<>();

  @Option(names = "--config", paramLabel = "FILE",
      description = "a file of 'key = value' lines: group (repeatable), root (repeatable), root-weight"
          + " (repeatable), host, port, deadline-ms, hedge-ms, allow-partial, poll-ms, group-key-file,"
          + " rerank-model; flags"
          + " given as well win")
  Path config;

  @Option(names = "--host", paramLabel = "ADDR", description = "address to bind (default: 127.0.0.1)")
  String host;

  @Option(names = "--port", paramLabel = "N", description = "port to listen on (default: 8090)")
  Integer port;

  @Option(names = "--deadline-ms", paramLabel = "MS",
      description = "longest a search may take, every phase and replica together (default: "
          + RouterConfig.DEFAULT_DEADLINE_MS + ")")
  Long deadlineMs;

  @Option(names = "--hedge-ms", paramLabel = "MS",
      description = "ask a group's next replica as well after this long without an answer; 0: off (default: 0)")
  Long hedgeMs;

  @Option(names = "--allow-partial", description = "answer without a group that has no live replica, with "
      + "\"partial\": true and the missing shards named (default: 503 with Retry-After)")
  Boolean allowPartial;

  @Option(names = "--poll-ms", paramLabel = "MS", description = "how often each replica is asked what it holds"
      + " (default: " + RouterConfig.DEFAULT_POLL_MS + ")")
  Long pollMs;

  @Option(names = "--group-key-file", paramLabel = "FILE", description = "a file holding the API key the router's"
      + " own calls to the groups carry (describe, polling), for groups started with --api-keys; searches carry"
      + " the client's key")
  Path groupKeyFile;

  @Option(names = "--rerank-model", paramLabel = "DIR",
      description = "a cross-encoder model directory, as kiln serve --rerank-model: the router reranks the"
          + " candidates it merged from the groups (rerank-depth of them, the groups' --rerank-depth unless the"
          + " request sets it), as one server with that reranker would")
  Path rerankModel;

  @Override
  public Integer call() throws Exception {
    List<String> groupValues = new ArrayList<>();
    List<String> rootValues = new ArrayList<>();
    List<Double> weightValues = new ArrayList<>();
    String fileHost = null;
    Integer filePort = null;
    Long fileDeadline = null;
    Long fileHedge = null;
    Boolean filePartial = null;
    Long filePoll = null;
    Path fileKey = null;
    Path fileRerank = null;
    if (config != null) {
      List<String> lines;
      try {
        lines = Files.readAllLines(config, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new ConfigException("--config " + config + " cannot be read: " + e.getMessage(), e);
      }
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        int eq = line.indexOf('=');
        if (eq < 0) {
          throw new ConfigException("--config " + config + " line " + (i + 1) + ": expected key = value");
        }
        String key = line.substring(0, eq).strip();
        String value = line.substring(eq + 1).strip();
        try {
          switch (key) {
            case "group" -> groupValues.add(value);
            case "root" -> rootValues.add(value);
            case "root-weight" -> weightValues.add(Double.parseDouble(value));
            case "host" -> fileHost = value;
            case "port" -> filePort = Integer.parseInt(value);
            case "deadline-ms" -> fileDeadline = Long.parseLong(value);
            case "hedge-ms" -> fileHedge = Long.parseLong(value);
            case "allow-partial" -> filePartial = Boolean.parseBoolean(value);
            case "poll-ms" -> filePoll = Long.parseLong(value);
            case "group-key-file" -> fileKey = Path.of(value);
            case "rerank-model" -> fileRerank = Path.of(value);
            default -> throw new ConfigException("--config " + config + " line " + (i + 1) + ": unknown key '" + key
                + "': use group, root, root-weight, host, port, deadline-ms, hedge-ms, allow-partial, poll-ms,"
                + " group-key-file or rerank-model");
          }
        } catch (NumberFormatException e) {
          throw new ConfigException("--config " + config + " line " + (i + 1) + ": '" + value
              + "' is not a number", e);
        }
      }
    }
    if (!groups.isEmpty()) {
      groupValues = groups;
    }
    if (!roots.isEmpty()) {
      rootValues = roots;
      weightValues = rootWeights;
    } else if (!rootWeights.isEmpty()) {
      weightValues = rootWeights;
    }
    RouterConfig rc;
    try {
      List<List<URI>> parsed = new ArrayList<>();
      for (String g : groupValues) {
        parsed.add(RouterConfig.parseGroup(g));
      }
      int p = port != null ? port : filePort != null ? filePort : 8090;
      if (p < 0 || p > 65535) {
        throw new IllegalArgumentException("--port must be in 0..65535, was " + p);
      }
      rc = new RouterConfig(parsed, host != null ? host : fileHost != null ? fileHost : "127.0.0.1", p,
          deadlineMs != null ? deadlineMs : fileDeadline != null ? fileDeadline : RouterConfig.DEFAULT_DEADLINE_MS,
          hedgeMs != null ? hedgeMs : fileHedge != null ? fileHedge : 0,
          allowPartial != null ? allowPartial : filePartial != null && filePartial,
          pollMs != null ? pollMs : filePoll != null ? filePoll : RouterConfig.DEFAULT_POLL_MS,
          groupKey(groupKeyFile != null ? groupKeyFile : fileKey), federated(rootValues, weightValues),
          rerankModel != null ? rerankModel : fileRerank);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e);
    }
    RouterServer server;
    try {
      server = RouterServer.start(rc);
    } catch (IllegalArgumentException e) {
      // The groups disagree (root, model, shards): a configuration to fix, not a failure.
      throw new ConfigException("kiln route: " + e.getMessage(), e);
    }
    System.out.printf("kiln: routing on http://%s:%d to %d shard group(s)%s (Ctrl-C to stop)%n", rc.host(),
        server.port(), rc.groups().size(), rc.roots().isEmpty() ? "" : " of " + rc.roots().size() + " roots");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "kiln-route-shutdown"));
    stopped.await();
    return Kiln.OK;
  }

  /** The federated roots with their weights (1 each unless given, one per root). */
  private static List<RouterConfig.Root> federated(List<String> roots, List<Double> weights) {
    if (!weights.isEmpty() && weights.size() != roots.size()) {
      throw new IllegalArgumentException("--root-weight: " + weights.size() + " weight(s) for " + roots.size()
          + " --root(s); give one per root, in the same order");
    }
    List<RouterConfig.Root> out = new ArrayList<>();
    for (int i = 0; i < roots.size(); i++) {
      out.add(new RouterConfig.Root(roots.get(i), weights.isEmpty() ? 1.0 : weights.get(i)));
    }
    return out;
  }

  /** The key in {@code file} (its first line, trimmed), or null without a file. */
  private static String groupKey(Path file) {
    if (file == null) {
      return null;
    }
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8).stream().findFirst().map(String::strip).orElse("");
    } catch (IOException e) {
      throw new ConfigException("--group-key-file " + file + " cannot be read: " + e.getMessage(), e);
    }
  }
}
