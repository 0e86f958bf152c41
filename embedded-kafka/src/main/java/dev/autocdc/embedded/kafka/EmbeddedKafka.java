package dev.autocdc.embedded.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node Kafka broker (KRaft, broker and controller in one) inside this JVM, on free
 * loopback ports, with its data in a temporary directory deleted on close. For the demo, local runs
 * and tests; never part of the cluster jar.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private final Path dir;
    private final KafkaRaftServer server;
    private final String bootstrap;

    private EmbeddedKafka(Path dir, KafkaRaftServer server, String bootstrap) {
        this.dir = dir;
        this.server = server;
        this.bootstrap = bootstrap;
    }

    /** Formats storage and starts the broker on a free port (about 2 s). */
    public static EmbeddedKafka start() throws Exception {
        return start(0);
    }

    /** Formats storage and starts the broker on {@code port}, or on a free port when it is 0. */
    public static EmbeddedKafka start(int port) throws Exception {
        Path dir = Files.createTempDirectory("autocdc-kafka-");
        int[] free = FreePorts.of(2);
        int brokerPort = port == 0 ? free[0] : port;
        int controllerPort = free[1] == brokerPort ? free[0] : free[1];
        String logDir = dir.resolve("data").toString();
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@localhost:" + controllerPort);
        p.put(
                "listeners",
                "PLAINTEXT://localhost:"
                        + brokerPort
                        + ",CONTROLLER://localhost:"
                        + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://localhost:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir);
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "true");
        KafkaConfig config = KafkaConfig.fromProps(p, false);
        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(1)
                .setClusterId(Uuid.randomUuid().toString())
                .addDirectory(logDir)
                .setMetadataLogDirectory(logDir)
                .setControllerListenerName("CONTROLLER")
                .setReleaseVersion(MetadataVersion.latestProduction())
                .run();
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        EmbeddedKafka kafka = new EmbeddedKafka(dir, server, "localhost:" + brokerPort);
        kafka.awaitReady();
        return kafka;
    }

    public String bootstrapServers() {
        return bootstrap;
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    public void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
        }
    }

    /**
     * Writes {@code values} to {@code topic} round-robin over its first {@code partitions}
     * partitions (value {@code i} to partition {@code i % partitions}, no key), each acknowledged
     * before the next: so a key's events spread over partitions, in order within each.
     */
    public void produce(String topic, List<String> values, int partitions) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", bootstrap),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, values.get(i)))
                        .get();
            }
        }
    }

    /**
     * Every record of a topic, from the start of each partition at least up to the end offsets it
     * has when the call begins: for a topic whose writer has finished (a bounded flow that
     * returned), so no wait for quiet is needed. Each partition's records come in offset order;
     * partitions interleave. A topic that does not exist has none. Fails after 60 s.
     */
    public List<ConsumerRecord<String, String>> readAll(String topic) {
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(
                        Map.of("bootstrap.servers", bootstrap, "enable.auto.commit", "false"),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 60_000;
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException(
                            "topic " + topic + " not read to its end offsets " + end + " in 60 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return records;
        }
    }

    private void awaitReady() throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            try (Admin admin = admin()) {
                admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("the embedded Kafka broker did not start", e);
                }
                Thread.sleep(100);
            }
        }
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: the OS cleans up what is left
        }
    }
}
