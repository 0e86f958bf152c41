package dev.autocdc.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka source whose key fields come from the record key ({@code key.format}): a record whose key
 * the key format cannot read is a dead letter with the key's and the value's bytes, and the job
 * goes on (semantics §11), where Flink's Kafka source would fail the job.
 */
class KafkaKeyTest {
    private static EmbeddedKafka kafka;

    @TempDir Path dir;

    @BeforeAll
    static void broker() throws Exception {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void aRecordWhoseKeyCannotBeReadIsADeadLetterWithBothBytes() throws Exception {
        kafka.createTopic("keyed", 1);
        String[][] records = {
            {"{\"id\": 1}", "{\"name\": \"a\", \"seq\": 1}"},
            {"{id: oops", "{\"name\": \"b\", \"seq\": 2}"},
            {"{\"id\": 2}", "{\"name\": \"c\", \"seq\": 1}"},
            {"{\"id\": 1}", "{\"name\": \"d\", \"seq\": 3}"}
        };
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (String[] r : records) {
                producer.send(new ProducerRecord<>("keyed", 0, r[0], r[1])).get();
            }
        }
        Path flow = dir.resolve("keyed.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users (id INT, name STRING, seq INT)
                WITH ('connector' = 'kafka', 'topic' = 'keyed', 'properties.bootstrap.servers' = '%s',
                      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
                      'key.format' = 'json', 'key.fields' = 'id',
                      'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
                CREATE OR REFRESH STREAMING TABLE users_now;
                CREATE FLOW f AS AUTO CDC INTO users_now FROM STREAM(users) KEYS (id)
                SEQUENCE BY seq COLUMNS * EXCEPT (seq);
                """
                        .formatted(kafka.bootstrapServers()));
        Path result = dir.resolve("users.jsonl");
        Path letters = dir.resolve("letters.jsonl");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(
                                new String[] {
                                    "run",
                                    "--flow",
                                    flow.toString(),
                                    "--materialize",
                                    result.toString(),
                                    "--dead-letters",
                                    letters.toString()
                                });
        assertThat(code).as(err.toString()).isZero();
        assertThat(Files.readAllLines(result))
                .containsExactly("{\"id\": 1, \"name\": \"d\"}", "{\"id\": 2, \"name\": \"c\"}");
        String keyBytes =
                Base64.getEncoder().encodeToString("{id: oops".getBytes(StandardCharsets.UTF_8));
        String valueBytes =
                Base64.getEncoder()
                        .encodeToString(
                                "{\"name\": \"b\", \"seq\": 2}".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readAllLines(letters))
                .singleElement()
                .satisfies(
                        l ->
                                assertThat(l)
                                        .contains("\"reason\": \"PARSE_ERROR\"")
                                        .contains("\"source\": \"users\"")
                                        .contains("the record's key")
                                        .contains(keyBytes)
                                        .contains("\"raw\": \"" + valueBytes + "\"")
                                        .contains("\"topic\": \"keyed\"")
                                        .contains("\"offset\": 1"));
    }
}
