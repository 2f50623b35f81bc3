package dev.kiln.config;

import dev.kiln.snapshot.SnapshotLayout;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A changelog build ({@code changelog:} in the YAML): the next snapshot is a base snapshot plus the
 * records of one Kafka topic from the offsets the base recorded up to the topic's end at job start.
 * Unset {@code topic} means an ordinary corpus build.
 */
public class ChangelogConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Kafka topic of {@code {"op": "upsert"|"delete", "id": ..., fields}} records ({@code --changelog-topic}). */
  public String topic = "";
  /** Kafka bootstrap servers, {@code host:port[,host:port]} ({@code --kafka-bootstrap}). */
  public String bootstrap = "";
  /**
   * Snapshot the build starts from ({@code --base-snapshot}): {@code current} (what {@code CURRENT}
   * names, or an empty base when nothing is published yet) or a snapshot id.
   */
  public String baseSnapshot = "current";
  /** How long to wait for the brokers when the build plans its offset range. */
  public int timeoutSeconds = 30;
  /**
   * Kafka client properties for both the planning admin client and the source, e.g.
   * {@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config},
   * {@code ssl.truststore.location}; secret-looking values are masked in the effective-config log.
   * Kiln sets bootstrap servers, group and client ids and offset handling itself.
   */
  public Map<String, String> properties = new LinkedHashMap<>();
  /**
   * The envelope of the topic's records ({@code --changelog-format}): {@code kiln} (Kiln's own
   * {@code {"op": "upsert"|"delete", ...}}), {@code debezium} (change events {@code {"before", "after",
   * "op": "c"|"u"|"r"|"d"}}, bare or wrapped as {@code {"schema", "payload"}}), or {@code auto}: decided
   * per record, Kiln's when its op is {@code upsert}/{@code delete}, else Debezium's when it has
   * {@code before}, {@code after}, a {@code payload} object or a Debezium op.
   */
  public String format = FORMAT_AUTO;
  /**
   * Debezium events: the row field (of {@code after}, of {@code before} for a delete) that holds the
   * document id. Empty (default): the Kafka record key — a plain string, or Debezium's key object,
   * whose {@code ingest.id-field} (or only) field is the id — and, for records without a key, the
   * row's {@code ingest.id-field}.
   */
  public String idField = "";
  /**
   * A row field (a Kiln upsert's field) that marks a soft delete: when its value is true, 1 or
   * "true"/"1" (any case), the upsert removes the document instead. Empty (default): none.
   */
  public String softDeleteField = "";

  public static final String FORMAT_KILN = "kiln";
  public static final String FORMAT_DEBEZIUM = "debezium";
  public static final String FORMAT_AUTO = "auto";

  /** Properties Kiln owns: setting them under {@code changelog.properties} would break the bounded read. */
  static final Set<String> RESERVED = Set.of("bootstrap.servers", "group.id",
      "enable.auto.commit", "auto.offset.reset", "key.deserializer", "value.deserializer");

  public boolean enabled() {
    return topic != null && !topic.isBlank();
  }

  void validate() {
    if (!List.of(FORMAT_KILN, FORMAT_DEBEZIUM, FORMAT_AUTO).contains(format)) {
      throw new ConfigException("--changelog-format / changelog.format must be kiln, debezium or auto, was '"
          + format + "'");
    }
    if (idField == null || softDeleteField == null) {
      throw new ConfigException("changelog.id-field and changelog.soft-delete-field may be empty, not null");
    }
    boolean hasBootstrap = bootstrap != null && !bootstrap.isBlank();
    if (!enabled()) {
      if (hasBootstrap) {
        throw new ConfigException("--kafka-bootstrap / changelog.bootstrap is set but no --changelog-topic /"
            + " changelog.topic: name the topic to build from");
      }
      return;
    }
    if (!hasBootstrap) {
      throw new ConfigException("--changelog-topic " + topic + " needs --kafka-bootstrap HOST:PORT"
          + " (changelog.bootstrap)");
    }
    for (String server : bootstrap.split(",")) {
      if (!server.strip().matches("[^:\\s]+:[0-9]{1,5}")) {
        throw new ConfigException("--kafka-bootstrap / changelog.bootstrap must be HOST:PORT[,HOST:PORT...], was '"
            + bootstrap + "'");
      }
    }
    if (baseSnapshot == null || !(baseSnapshot.equals("current")
        || SnapshotLayout.isSnapshotId(baseSnapshot))) {
      throw new ConfigException("--base-snapshot / changelog.base-snapshot must be 'current' or a snapshot id such as"
          + " 20261202T131755Z-3fa9c1, was '" + baseSnapshot + "'");
    }
    for (String key : properties.keySet()) {
      if (RESERVED.contains(key)) {
        throw new ConfigException("changelog.properties." + key + " is set by Kiln (use --kafka-bootstrap for the"
            + " servers; offsets come from the base snapshot's manifest); remove it");
      }
    }
    if (timeoutSeconds < 1 || timeoutSeconds > 3600) {
      throw new ConfigException("changelog.timeout-seconds must be in 1..3600, was " + timeoutSeconds);
    }
  }
}
