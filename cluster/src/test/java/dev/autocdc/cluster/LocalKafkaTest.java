package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/autocdc kafka --port P}, the broker docs/deploy.md starts for flows on {@code
 * deploy/local-cluster}: run as a user runs it, it prints its address, takes a record and gives it
 * back, and ends on SIGTERM (Ctrl-C) with its port closed.
 */
class LocalKafkaTest {
    @Test
    void theBrokerStartsOnItsPortServesAndStops() throws Exception {
        int port = LocalCluster.freePort();
        Process broker =
                new ProcessBuilder(
                                Path.of("..", "deploy", "autocdc").toAbsolutePath().toString(),
                                "kafka",
                                "--port",
                                "" + port)
                        .redirectErrorStream(true)
                        .start();
        StringBuffer output = new StringBuffer();
        Thread reader = new Thread(() -> read(broker, output));
        reader.start();
        try {
            String address = "kafka: broker at localhost:" + port;
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (!output.toString().contains(address) && System.nanoTime() < deadline) {
                assertThat(broker.isAlive()).as(output.toString()).isTrue();
                Thread.sleep(200);
            }
            assertThat(output.toString()).contains(address);
            String bootstrap = "localhost:" + port;
            try (var producer =
                    new KafkaProducer<String, String>(
                            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                            new StringSerializer(),
                            new StringSerializer())) {
                producer.send(new ProducerRecord<>("hello", "k", "v1")).get(30, TimeUnit.SECONDS);
            }
            assertThat(consume(bootstrap, "hello")).containsExactly("v1");
        } finally {
            // SIGTERM, as Ctrl-C's SIGINT: the shutdown hook closes the broker (through the
            // handle: Process.destroy would also close the output it prints on the way out)
            broker.toHandle().destroy();
            assertThat(broker.waitFor(1, TimeUnit.MINUTES)).as(output.toString()).isTrue();
            reader.join(10_000);
        }
        assertThat(output.toString()).contains("kafka: stopped");
        try (ServerSocket free = new ServerSocket(port)) {
            assertThat(free.getLocalPort()).isEqualTo(port); // the broker's port is free again
        }
    }

    private static List<String> consume(String bootstrap, String topic) {
        List<String> values = new ArrayList<>();
        try (var consumer =
                new KafkaConsumer<String, String>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                                ConsumerConfig.GROUP_ID_CONFIG, "local-kafka-test",
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    private static void read(Process process, StringBuffer output) {
        try (var in =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                output.append(line).append('\n');
            }
        } catch (Exception e) {
            output.append(e).append('\n');
        }
    }
}
