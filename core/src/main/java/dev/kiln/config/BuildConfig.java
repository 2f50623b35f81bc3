package dev.kiln.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kiln.model.InputFormat;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The build job's whole configuration: loaded from YAML ({@code configs/build.yaml} by default),
 * overridden from the command line, validated once, logged at start and serialised into the job.
 */
public class BuildConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Corpus locations: files or directories. */
  public List<String> corpus = new ArrayList<>(List.of("docs"));
  /** Input format, or {@code auto} to choose by file extension. */
  public String format = "auto";
  /** Snapshots root: holds {@code CURRENT} and {@code snapshots/<id>/}. */
  public String snapshots = "kiln-data/snapshots";
  /** Number of shards; every chunk of a document lands in shard {@code hash(docId) mod shards}. */
  public int shards = 2;
  /** Flink parallelism of the job. */
  public int parallelism = 2;
  /** Publish the snapshot (flip {@code CURRENT}) when the build succeeds. */
  public boolean publish = true;
  /**
   * Times Flink restarts the failed part of a build (a lost TaskManager, a failed task) before the
   * build fails; 0 = no restarts. Batch jobs restart only the failed region, and every stage's
   * retry writes exactly what a first attempt would.
   */
  public int restartAttempts = 3;
  /** Wait before each restart, in milliseconds: time for a lost TaskManager to be replaced. */
  public long restartDelayMs = 5_000;
  /**
   * How often, in milliseconds, each subtask of the parse, embed and write stages logs a progress line
   * (done of the total where known, rate, ETA); its Flink metrics ({@code progress*}) move on every
   * record whatever this is.
   */
  public long progressIntervalMs = 30_000;
  /**
   * What a build does when another build of the same snapshots root is running (its {@code STAGING}
   * marker's heartbeat is fresh): {@code refuse} (default: exit 2, nothing written), {@code wait} (start
   * once it has finished or died), or {@code allow} (run anyway; the later publish loses its
   * compare-and-set unless {@code --force}).
   */
  public String concurrentBuilds = "refuse";
  /**
   * {@code auto}: a corpus build over a compatible published snapshot ({@code CURRENT}) keeps that
   * snapshot's segments and rewrites only the documents whose {@code DocumentFingerprint} changed (and
   * removes those gone from the corpus); any incompatibility builds in full, with the reason logged.
   * {@code off}: every build writes every shard from scratch.
   */
  public String incremental = "auto";
  /**
   * How an incremental build tells an unchanged corpus file: {@code stat} (default) leaves unread a file
   * whose URI, size and modification time equal its base's listing ({@code corpus-files.tsv}) and from
   * which the base quarantined nothing, keeping its documents from the base; {@code read} reads every
   * file and compares each record's fingerprint. Use {@code read} where a file can change without its
   * size or modification time changing (a tool that restores times, a clock set back).
   */
  public String incrementalFiles = "stat";
  /**
   * How the job's stages exchange data: {@code hybrid} (Flink's hybrid shuffle: a stage starts
   * consuming while the one before still produces, everything spilled for restarts; the TaskManagers
   * must be configured for it), {@code blocking} (Flink's batch default: each stage waits for the whole
   * output of the one before), or {@code auto}: hybrid on the embedded mini-cluster, blocking on a
   * cluster.
   */
  public String shuffle = "auto";

  /**
   * Flink file system settings for {@code s3://} and {@code hdfs://} corpora and snapshots roots, as
   * Flink keys: {@code s3.endpoint}, {@code s3.path.style.access}, {@code s3.access-key},
   * {@code s3.secret-key}. Unset S3 keys fall back to the AWS environment variables.
   */
  public Map<String, String> filesystem = new LinkedHashMap<>();
  public IngestConfig ingest = new IngestConfig();
  public ChunkerConfig chunker = new ChunkerConfig();
  public EmbedConfig embed = new EmbedConfig();
  public IndexConfig index = new IndexConfig();
  /** Kafka changelog builds: base snapshot + a bounded offset range of a topic. */
  public ChangelogConfig changelog = new ChangelogConfig();

  private static ObjectMapper yaml() {
    return new ObjectMapper(new YAMLFactory())
        .setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  /** Reads a YAML config file; unknown keys are errors so that a typo never goes unnoticed. */
  public static BuildConfig load(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("config file not found: " + file.toAbsolutePath());
    }
    try {
      BuildConfig config = yaml().readValue(file.toFile(), BuildConfig.class);
      return config == null ? new BuildConfig() : config;
    } catch (UnrecognizedPropertyException e) {
      throw new ConfigException(
          "unknown key '" + e.getPropertyName() + "' in " + file + " (at " + e.getPathReference()
              + "); known keys: " + e.getKnownPropertyIds());
    } catch (IOException e) {
      throw new ConfigException("cannot read config " + file + ": " + e.getMessage(), e);
    }
  }

  public InputFormat inputFormat() {
    return InputFormat.parse(format);
  }

  /** Checks every setting; throws {@link ConfigException} naming the first one to fix. */
  public BuildConfig validate() {
    if (corpus == null || corpus.isEmpty()) {
      throw new ConfigException("no corpus given: set 'corpus' in the config or pass --corpus PATH");
    }
    try {
      inputFormat();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    if (snapshots == null || snapshots.isBlank()) {
      throw new ConfigException("'snapshots' must name the snapshots root (--snapshots DIR)");
    }
    if (shards < 1 || shards > 4096) {
      throw new ConfigException("shards must be in 1..4096, was " + shards);
    }
    if (parallelism < 1 || parallelism > 1024) {
      throw new ConfigException("parallelism must be in 1..1024, was " + parallelism);
    }
    ingest.validate();
    chunker.validate();
    if (restartAttempts < 0) {
      throw new ConfigException("restart-attempts must be >= 0, was " + restartAttempts);
    }
    if (!"auto".equals(shuffle) && !"hybrid".equals(shuffle) && !"blocking".equals(shuffle)) {
      throw new ConfigException("shuffle must be 'auto', 'hybrid' or 'blocking', was '" + shuffle + "'");
    }
    if (!"auto".equals(incremental) && !"off".equals(incremental)) {
      throw new ConfigException("incremental must be 'auto' or 'off', was '" + incremental + "'");
    }
    if (!"stat".equals(incrementalFiles) && !"read".equals(incrementalFiles)) {
      throw new ConfigException("incremental-files must be 'stat' or 'read', was '" + incrementalFiles + "'");
    }
    if (!"refuse".equals(concurrentBuilds) && !"wait".equals(concurrentBuilds) && !"allow".equals(concurrentBuilds)) {
      throw new ConfigException("concurrent-builds must be 'refuse', 'wait' or 'allow', was '" + concurrentBuilds + "'");
    }
    if (progressIntervalMs < 100) {
      throw new ConfigException("progress-interval-ms must be >= 100, was " + progressIntervalMs);
    }
    if (restartDelayMs < 0) {
      throw new ConfigException("restart-delay-ms must be >= 0, was " + restartDelayMs);
    }
    embed.validate();
    index.validate();
    changelog.validate();
    return this;
  }

  /** The effective configuration, one {@code + key: value} line per setting (Anserini style). */
  public List<String> describe() {
    JsonNode tree = yaml().valueToTree(this);
    List<String> lines = new ArrayList<>();
    flatten("", tree, lines);
    return lines;
  }

  private static void flatten(String prefix, JsonNode node, List<String> out) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), out);
      }
    } else {
      out.add("+ " + prefix + ": " + (isSecret(prefix) ? "****" : node.isTextual() ? node.asText() : node.toString()));
    }
  }

  /**
   * Settings whose values must never reach a log: credentials in {@code filesystem:} and Kafka
   * properties, whatever the store calls them (S3 {@code s3.secret-key}, Azure
   * {@code fs.azure.account.key.<account>} and {@code fs.azure.sas.<container>.<account>}, GCS
   * {@code *.credentials}, Kafka {@code sasl.jaas.config}, {@code ssl.key.password}, tokens). It errs
   * towards hiding: a masked harmless value costs nothing, a leaked key a rotation. {@code sas} and
   * {@code key} count as whole words only, so {@code sasl.mechanism} stays readable.
   */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    for (String word : SECRET_WORDS) {
      if (k.contains(word)) {
        return true;
      }
    }
    for (String part : k.split("[^a-z0-9]+")) {
      if (part.equals("key") || part.equals("sas") || part.equals("keys")) {
        return true;
      }
    }
    return false;
  }

  private static final List<String> SECRET_WORDS = List.of("secret", "password", "passwd", "credential",
      "token", "jaas", "access-key", "access.key", "accesskey", "account.key", "private", "signature");
}
