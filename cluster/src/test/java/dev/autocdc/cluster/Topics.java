package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.EmbeddedKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Writing a source topic and reading an upsert target topic on the test's in-JVM broker. */
final class Topics {
    private Topics() {}

    /** One line per record, round robin over the partitions: a key's events in all of them. */
    static void produce(EmbeddedKafka kafka, String topic, List<String> lines, int partitions)
            throws Exception {
        kafka.createTopic(topic, partitions);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers(), "linger.ms", 5),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (int i = 0; i < lines.size(); i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, lines.get(i)));
            }
            producer.flush();
        }
    }

    /**
     * Reads the upsert topic from the start, materializing it by key, until it holds exactly the
     * expected rows; fails with the difference after the timeout.
     */
    static void awaitRows(
            EmbeddedKafka kafka, String topic, Set<List<Object>> expected, Duration timeout)
            throws Exception {
        Map<String, String> table = Scd2Workload.newTable();
        Set<List<Object>> rows = Set.of();
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
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    Scd2Workload.upsert(table, r.key(), r.value());
                }
                rows = Scd2Workload.rows(table);
                if (rows.equals(expected)) {
                    return;
                }
            }
        }
        assertThat(rows).as("the target topic %s", topic).isEqualTo(expected);
    }
}
