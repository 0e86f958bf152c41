package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Writing a source topic and reading an upsert target topic on the test's in-JVM broker. */
final class Topics {
    private Topics() {}

    /** One line per record, round robin over the partitions: a key's events in all of them. */
    static void produce(EmbeddedKafka kafka, String topic, List<String> lines, int partitions)
            throws Exception {
        kafka.createTopic(topic, partitions);
        append(kafka, topic, lines, partitions);
    }

    /**
     * As {@link #produce}, to a topic that exists: record {@code i} of {@code lines} to partition
     * {@code i % partitions}, so that the same lines give the same offsets on any broker.
     */
    static void append(EmbeddedKafka kafka, String topic, List<String> lines, int partitions)
            throws Exception {
        List<byte[]> values = new ArrayList<>(lines.size());
        for (String line : lines) {
            values.add(line.getBytes(StandardCharsets.UTF_8));
        }
        send(kafka, topic, values, partitions);
    }

    /**
     * Writes the values as they are, value {@code i} to partition {@code i % partitions}, in
     * requests of up to 2 MB; where each landed, in the values' order.
     */
    static List<RecordMetadata> send(
            EmbeddedKafka kafka, String topic, List<byte[]> values, int partitions)
            throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>(values.size());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        Map.of(
                                "bootstrap.servers",
                                kafka.bootstrapServers(),
                                "linger.ms",
                                5,
                                "max.request.size",
                                2 * 1024 * 1024),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            for (int i = 0; i < values.size(); i++) {
                sent.add(
                        producer.send(
                                new ProducerRecord<>(topic, i % partitions, null, values.get(i))));
            }
            producer.flush();
        }
        List<RecordMetadata> landed = new ArrayList<>(sent.size());
        for (Future<RecordMetadata> f : sent) {
            landed.add(f.get());
        }
        return landed;
    }

    /**
     * Reads the upsert topic from the start, materializing it by key, until it holds exactly the
     * expected rows; fails with the difference after the timeout.
     */
    static void awaitRows(
            EmbeddedKafka kafka, String topic, Set<List<Object>> expected, Duration timeout)
            throws Exception {
        Map<String, String> table = Scd2Workload.newTable();
        Set<List<Object>> rows;
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                "bootstrap.servers",
                                kafka.bootstrapServers(),
                                "group.id",
                                "reader-" + UUID.randomUUID(),
                                "auto.offset.reset",
                                "earliest"),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (System.nanoTime() < deadline) {
                ConsumerRecords<String, String> polled = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<String, String> r : polled) {
                    Scd2Workload.upsert(table, r.key(), r.value());
                }
                // compared only once caught up: a comparison costs the whole table
                if (polled.isEmpty() && Scd2Workload.rows(table).equals(expected)) {
                    return;
                }
            }
            rows = Scd2Workload.rows(table);
        }
        assertThat(rows).as("the target topic %s", topic).isEqualTo(expected);
    }

    /** How a target topic is read (committed records only: transactional writers). */
    enum Read {
        /** An upsert topic: the last value per key. */
        UPSERT,
        /** A {@code debezium-json} changelog, applied record by record. */
        CHANGELOG
    }

    /**
     * Reads a target topic from the start until it holds exactly the expected rows; fails with the
     * difference after the timeout. An upsert topic is materialized by key; a changelog topic
     * ({@code debezium-json}, read with {@code read_committed}) is applied record by record and
     * must be well formed: a {@code c} record (+I, +U) of a primary key that is present, or a
     * {@code d} record (-U, -D) of a row that is not, fails the test.
     *
     * @param columns the target's columns in the reference model's row order; the primary key is
     *     {@code id} and the {@code _START_AT} columns
     */
    static void awaitTable(
            EmbeddedKafka kafka,
            String topic,
            Read read,
            List<String> columns,
            Set<List<Object>> expected,
            Duration timeout)
            throws Exception {
        awaitTable(kafka, topic, read, columns, Set.of(), expected, timeout);
    }

    /**
     * As {@link #awaitTable(EmbeddedKafka, String, Read, List, Set, Duration)}, with the topic's
     * records applied to {@code initial} rows: what the target held before the topic was written (a
     * job restored from a savepoint taken elsewhere writes only what changed since).
     */
    static void awaitTable(
            EmbeddedKafka kafka,
            String topic,
            Read read,
            List<String> columns,
            Set<List<Object>> initial,
            Set<List<Object>> expected,
            Duration timeout)
            throws Exception {
        List<Integer> key = new ArrayList<>();
        List<String> keyColumns = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).equals("id") || columns.get(i).endsWith("_START_AT")) {
                key.add(i);
                keyColumns.add(columns.get(i));
            }
        }
        Map<List<Object>, List<Object>> table = new HashMap<>();
        for (List<Object> row : initial) {
            List<Object> k = new ArrayList<>();
            for (int i : key) {
                k.add(row.get(i));
            }
            table.put(k, row);
        }
        List<String> malformed = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", kafka.bootstrapServers());
        config.put("group.id", "reader-" + UUID.randomUUID());
        config.put("auto.offset.reset", "earliest");
        config.put("isolation.level", "read_committed");
        boolean changelog = read == Read.CHANGELOG;
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (System.nanoTime() < deadline) {
                ConsumerRecords<String, String> polled = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<String, String> r : polled) {
                    if (!changelog) {
                        List<Object> k = HistoryWorkload.row(JSON.readTree(r.key()), keyColumns);
                        if (r.value() == null) {
                            table.remove(k);
                        } else {
                            table.put(k, HistoryWorkload.row(JSON.readTree(r.value()), columns));
                        }
                        continue;
                    }
                    JsonNode n = JSON.readTree(r.value());
                    boolean create = n.path("op").asText().equals("c");
                    List<Object> row =
                            HistoryWorkload.row(n.path(create ? "after" : "before"), columns);
                    List<Object> k = new ArrayList<>();
                    for (int i : key) {
                        k.add(row.get(i));
                    }
                    List<Object> present = table.get(k);
                    if (create && present != null) {
                        malformed.add("+ of a present key: " + r.value());
                    } else if (!create && !row.equals(present)) {
                        malformed.add("- of a row not there: " + r.value());
                    }
                    if (create) {
                        table.put(k, row);
                    } else {
                        table.remove(k);
                    }
                }
                // compared only once caught up: a comparison costs the whole table
                if (polled.isEmpty() && new HashSet<>(table.values()).equals(expected)) {
                    break;
                }
            }
        }
        Set<List<Object>> rows = new HashSet<>(table.values());
        assertThat(malformed).as("malformed changelog rows of %s", topic).isEmpty();
        Set<List<Object>> missing = new HashSet<>(expected);
        missing.removeAll(rows);
        Set<List<Object>> extra = new HashSet<>(rows);
        extra.removeAll(expected);
        assertThat(rows)
                .as(
                        "the target topic %s: %d rows missing (for example %s), %d rows too many"
                                + " (for example %s)",
                        topic,
                        missing.size(),
                        missing.stream().limit(10).toList(),
                        extra.size(),
                        extra.stream().limit(10).toList())
                .isEqualTo(expected);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The values of {@code topic} read with {@code read_committed}: once {@code count} have come,
     * what more a last second of polling brings (so that one too many shows); or what came by the
     * timeout.
     */
    static List<String> committedValues(
            EmbeddedKafka kafka, String topic, int count, Duration timeout) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", kafka.bootstrapServers());
        config.put("group.id", "reader-" + UUID.randomUUID());
        config.put("auto.offset.reset", "earliest");
        config.put("isolation.level", "read_committed");
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (values.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
            }
            consumer.poll(Duration.ofSeconds(1)).forEach(r -> values.add(r.value()));
        }
        return values;
    }
}
