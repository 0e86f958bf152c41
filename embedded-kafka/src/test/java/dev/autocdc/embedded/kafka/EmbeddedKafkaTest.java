package dev.autocdc.embedded.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaTest {
    @Test
    void startsProducesAndConsumes() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("t", 2);
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(
                            Map.of("bootstrap.servers", kafka.bootstrapServers()),
                            new StringSerializer(),
                            new StringSerializer())) {
                producer.send(new ProducerRecord<>("t", 1, "k", "hello")).get();
            }
            List<String> seen = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(
                            Map.of(
                                    "bootstrap.servers",
                                    kafka.bootstrapServers(),
                                    "group.id",
                                    "g",
                                    "auto.offset.reset",
                                    "earliest"),
                            new StringDeserializer(),
                            new StringDeserializer())) {
                consumer.subscribe(List.of("t"));
                long deadline = System.currentTimeMillis() + 30_000;
                while (seen.isEmpty() && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        seen.add(r.partition() + ":" + r.value());
                    }
                }
            }
            assertThat(seen).containsExactly("1:hello");
        }
    }

    /** readAll returns every record of every partition, up to the end offsets, without waiting. */
    @Test
    void readAllReadsEveryPartitionToItsEnd() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("all", 3);
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(
                            Map.of("bootstrap.servers", kafka.bootstrapServers()),
                            new StringSerializer(),
                            new StringSerializer())) {
                for (int i = 0; i < 30; i++) {
                    producer.send(new ProducerRecord<>("all", i % 3, "k" + i, "v" + i)).get();
                }
            }
            List<String> read = new ArrayList<>();
            for (ConsumerRecord<String, String> r : kafka.readAll("all")) {
                read.add(r.partition() + ":" + r.value());
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                expected.add(i % 3 + ":v" + i);
            }
            assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(kafka.readAll("nothing_written_" + System.nanoTime())).isEmpty();
        }
    }

    /** produce writes value i to partition i % n, each partition's values in their order. */
    @Test
    void produceSpreadsTheValuesRoundRobin() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("spread", 3);
            List<String> values = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                values.add("v" + i);
            }
            kafka.produce("spread", values, 3);
            List<String> partitionOne = new ArrayList<>();
            for (ConsumerRecord<String, String> r : kafka.readAll("spread")) {
                assertThat(Integer.parseInt(r.value().substring(1)) % 3)
                        .as(r.value())
                        .isEqualTo(r.partition());
                assertThat(r.key()).isNull();
                if (r.partition() == 1) {
                    partitionOne.add(r.value());
                }
            }
            assertThat(partitionOne).containsExactly("v1", "v4", "v7");
        }
    }
}
