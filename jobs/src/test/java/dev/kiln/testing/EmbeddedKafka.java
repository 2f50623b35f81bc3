package dev.kiln.testing;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node Kafka (KRaft, combined broker and controller) in this JVM, listening on 127.0.0.1
 * only, with its log under a test's temporary directory. The storage is formatted first, as
 * {@code kafka-storage format} would do, since a KRaft node refuses to start on an unformatted log dir.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private final KafkaRaftServer server;
  private final String bootstrap;

  public EmbeddedKafka(Path dir) throws Exception {
    int[] ports = FreePorts.pick(2);
    int brokerPort = ports[0];
    int controllerPort = ports[1];
    String logDir = dir.resolve("kafka-logs").toAbsolutePath().toString();
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", logDir);
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    KafkaConfig config = KafkaConfig.fromProps(p, false);
    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setClusterId(Uuid.randomUuid().toString())
        .setNodeId(1)
        .setDirectories(List.of(logDir))
        .setMetadataLogDirectory(logDir)
        .setControllerListenerName("CONTROLLER")
        .setReleaseVersion(MetadataVersion.latestProduction())
        .run();
    server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    bootstrap = "127.0.0.1:" + brokerPort;
  }

  public String bootstrap() {
    return bootstrap;
  }

  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  public void createTopic(String topic, int partitions) throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
    }
  }

  /** A producer keyed by document id, as changelog producers are expected to be. */
  public KafkaProducer<String, String> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(p);
  }

  /** Sends and waits, so the records are in the log when this returns. */
  public RecordMetadata send(KafkaProducer<String, String> producer, String topic, String key, String value)
      throws Exception {
    return producer.send(new ProducerRecord<>(topic, key, value)).get(60, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
  }
}
