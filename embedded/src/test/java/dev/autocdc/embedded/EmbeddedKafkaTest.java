package dev.autocdc.embedded;

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
}
