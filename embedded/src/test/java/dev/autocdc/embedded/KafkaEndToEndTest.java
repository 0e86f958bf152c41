package dev.autocdc.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with real topics on the in-JVM broker: change events produced to a Kafka topic (each
 * key's events deliberately spread over several partitions), the flow run from its SQL text by the
 * CLI at parallelism 2, the target written to an upsert-kafka topic, read back and materialized by
 * key.
 */
class KafkaEndToEndTest {
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

    /**
     * The references' users feed, one JSON event per line, as the repository's example ships it.
     */
    static final List<String> USERS = readLines(Path.of("..", "examples", "users_cdf.json"));

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void usersScd2FromKafkaToUpsertKafkaInAnyOrderAcrossPartitions() throws Exception {
        List<List<String>> results = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            String source = "users_cdf_" + round;
            String target = "users_history_" + round;
            kafka.createTopic(source, 3);
            kafka.createTopic(target, 1);
            List<String> events = new ArrayList<>(USERS);
            Collections.shuffle(events, new Random(round));
            produce(source, events, 3);
            Path flow = dir.resolve("users" + round + ".sql");
            Files.writeString(
                    flow,
                    """
                    CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                    WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'autocdc-test', 'scan.startup.mode' = 'earliest-offset',
                          'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE users_history
                    WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                          'key.format' = 'json', 'value.format' = 'json');
                    CREATE FLOW apply_cdc AS AUTO CDC INTO users_history
                    FROM STREAM(users_cdf)
                    KEYS (userId)
                    APPLY AS DELETE WHEN operation = "DELETE"
                    SEQUENCE BY sequenceNum
                    COLUMNS * EXCEPT (operation, sequenceNum)
                    STORED AS SCD TYPE 2;
                    """
                            .formatted(
                                    source,
                                    kafka.bootstrapServers(),
                                    target,
                                    kafka.bootstrapServers()));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code =
                    new AutoCdcCli(
                                    new PrintStream(new ByteArrayOutputStream()),
                                    new PrintStream(err, true, StandardCharsets.UTF_8))
                            .run(
                                    new String[] {
                                        "run", "--flow", flow.toString(), "--parallelism", "2"
                                    });
            assertThat(code).as(err.toString()).isZero();
            results.add(readUpsertTopic(target));
        }
        List<String> expected =
                List.of(
                        "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Chihuahua\",\"__START_AT\":5,\"__END_AT\":6}",
                        "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Monterrey\",\"__START_AT\":1,\"__END_AT\":5}",
                        "{\"userId\":124,\"name\":\"Raul\",\"city\":\"Oaxaca\",\"__START_AT\":1,\"__END_AT\":null}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Guadalajara\",\"__START_AT\":6,\"__END_AT\":null}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Mexicali\",\"__START_AT\":5,\"__END_AT\":6}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Tijuana\",\"__START_AT\":2,\"__END_AT\":5}",
                        "{\"userId\":126,\"name\":\"Lily\",\"city\":\"Cancun\",\"__START_AT\":2,\"__END_AT\":null}");
        assertThat(results.get(0)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(results.get(1)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * A Debezium changelog topic: creates, updates (their -U rows skipped) and deletes (-D rows,
     * whose values are the before image), sequenced by the Debezium source timestamp read as a
     * metadata column; the target kept by the CLI and materialized.
     */
    @Test
    void debeziumJsonSourceSequencedBySourceTimestamp() throws Exception {
        kafka.createTopic("users_debezium", 2);
        List<String> events =
                List.of(
                        debezium("c", null, user(124, "Raul", "Oaxaca"), 1000),
                        debezium("c", null, user(123, "Isabel", "Monterrey"), 1000),
                        debezium("c", null, user(125, "Mercedes", "Tijuana"), 2000),
                        debezium("c", null, user(126, "Lily", "Cancun"), 2000),
                        debezium("d", user(123, "Isabel", "Chihuahua"), null, 6000),
                        debezium(
                                "u",
                                user(125, "Mercedes", "Mexicali"),
                                user(125, "Mercedes", "Guadalajara"),
                                6000),
                        debezium(
                                "u",
                                user(125, "Mercedes", "Tijuana"),
                                user(125, "Mercedes", "Mexicali"),
                                5000),
                        debezium(
                                "u",
                                user(123, "Isabel", "Monterrey"),
                                user(123, "Isabel", "Chihuahua"),
                                5000));
        List<String> withGarbage = new ArrayList<>(events);
        withGarbage.add(4, "{\"op\": \"c\", \"after\": {broken");
        produce("users_debezium", withGarbage, 2);
        Path flow = dir.resolve("debezium.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdc (userId INT, name STRING, city STRING,
                  changed_at TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL,
                  part BIGINT METADATA FROM 'partition' VIRTUAL)
                WITH ('connector' = 'kafka', 'topic' = 'users_debezium', 'properties.bootstrap.servers' = '%s',
                      'properties.group.id' = 'autocdc-test', 'scan.startup.mode' = 'earliest-offset',
                      'scan.bounded.mode' = 'latest-offset', 'format' = 'debezium-json');
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW users AS AUTO CDC INTO users_history FROM STREAM(users_cdc)
                KEYS (userId) SEQUENCE BY changed_at COLUMNS * EXCEPT (changed_at, part) STORED AS SCD TYPE 2;
                """
                        .formatted(kafka.bootstrapServers()));
        Path result = dir.resolve("debezium.jsonl");
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
                                    "--parallelism",
                                    "2",
                                    "--materialize",
                                    result.toString()
                                });
        assertThat(code).as(err.toString()).isZero();
        // the format's metadata (value.source.timestamp) still sequences the flow, which decodes
        // the records itself and keeps the broken one as a dead letter; a partition declared
        // BIGINT (as Flink's docs do) serves its coordinates
        assertThat(err.toString())
                .contains("autocdc: flow users: 1 dead letter (PARSE_ERROR 1) logged only");
        String t = "\"__START_AT\": \"1970-01-01 00:00:0%dZ\", \"__END_AT\": %s}";
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Monterrey\", "
                                + t.formatted(1, "\"1970-01-01 00:00:05Z\""),
                        "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Chihuahua\", "
                                + t.formatted(5, "\"1970-01-01 00:00:06Z\""),
                        "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Oaxaca\", "
                                + t.formatted(1, "null"),
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Tijuana\", "
                                + t.formatted(2, "\"1970-01-01 00:00:05Z\""),
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Mexicali\", "
                                + t.formatted(5, "\"1970-01-01 00:00:06Z\""),
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Guadalajara\", "
                                + t.formatted(6, "null"),
                        "{\"userId\": 126, \"name\": \"Lily\", \"city\": \"Cancun\", "
                                + t.formatted(2, "null"));
    }

    /**
     * APPLY AS TRUNCATE WHEN at parallelism 2: the truncate in one partition, keys before and after
     * it in others.
     */
    @Test
    void truncateReachesKeysOfEveryPartition() throws Exception {
        kafka.createTopic("truncating", 3);
        List<String> events = new ArrayList<>();
        for (int id = 1; id <= 12; id++) {
            events.add("{\"id\": " + id + ", \"v\": \"before\", \"op\": \"UPSERT\", \"seq\": 1}");
        }
        events.add("{\"id\": null, \"v\": null, \"op\": \"TRUNCATE\", \"seq\": 5}");
        for (int id = 7; id <= 18; id++) {
            events.add(
                    "{\"id\": "
                            + id
                            + ", \"v\": \"after\", \"op\": \"UPSERT\", \"seq\": "
                            + (id % 2 == 0 ? 7 : 3)
                            + "}");
        }
        produce("truncating", events, 3);
        Path flow = dir.resolve("truncate.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE src (id INT, v STRING, op STRING, seq INT)
                WITH ('connector' = 'kafka', 'topic' = 'truncating', 'properties.bootstrap.servers' = '%s',
                      'properties.group.id' = 'autocdc-test', 'scan.startup.mode' = 'earliest-offset',
                      'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE current_values;
                CREATE FLOW f AS AUTO CDC INTO current_values FROM STREAM(src)
                KEYS (id) APPLY AS TRUNCATE WHEN op = 'TRUNCATE' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq)
                STORED AS SCD TYPE 1;
                """
                        .formatted(kafka.bootstrapServers()));
        Path result = dir.resolve("truncate.jsonl");
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
                                    "--parallelism",
                                    "2",
                                    "--materialize",
                                    result.toString()
                                });
        assertThat(code).as(err.toString()).isZero();
        List<String> expected = new ArrayList<>();
        for (int id = 8; id <= 18; id += 2) {
            expected.add(
                    "{\"id\": " + id + ", \"v\": \"after\"}"); // written after the truncate (7 > 5)
        }
        assertThat(Files.readAllLines(result)).containsExactlyElementsOf(expected);
    }

    private static String user(int id, String name, String city) {
        return "{\"userId\": " + id + ", \"name\": \"" + name + "\", \"city\": \"" + city + "\"}";
    }

    private static String debezium(String op, String before, String after, long sourceMillis) {
        return "{\"before\": "
                + before
                + ", \"after\": "
                + after
                + ", \"op\": \""
                + op
                + "\", \"source\": {\"ts_ms\": "
                + sourceMillis
                + ", \"db\": \"hr\", \"table\": \"users\"}, \"ts_ms\": "
                + (sourceMillis + 10)
                + "}";
    }

    /**
     * Records the format cannot parse reach the dead-letter table with the parse error, the raw
     * record and its Kafka coordinates, with the source declared as plain 'json' (the flow decodes
     * it); the good records make the table.
     */
    @Test
    void unparseableRecordsGoToTheDeadLetterTable() throws Exception {
        kafka.createTopic("users_with_garbage", 2);
        kafka.createTopic("users_dead_letters", 1);
        List<String> events = new ArrayList<>(USERS);
        events.add(3, "{this is not json");
        events.add("{\"userId\": \"one hundred\", \"sequenceNum\": [1]}");
        events.add("{\"userId\": null, \"name\": \"nobody\", \"sequenceNum\": 9}");
        produce("users_with_garbage", events, 2);
        Path flow = dir.resolve("garbage.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'kafka', 'topic' = 'users_with_garbage', 'properties.bootstrap.servers' = '%s',
                      'properties.group.id' = 'autocdc-test', 'scan.startup.mode' = 'earliest-offset',
                      'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
                CREATE TABLE dead_letters (flow STRING, source STRING, reason STRING, message STRING, payload STRING,
                  topic STRING, `partition` INT, `offset` BIGINT, raw_record BYTES)
                WITH ('connector' = 'kafka', 'topic' = 'users_dead_letters', 'properties.bootstrap.servers' = '%s',
                      'format' = 'json');
                SET 'autocdc.apply_cdc.dead-letter-table' = 'dead_letters';
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW apply_cdc AS AUTO CDC INTO users_history FROM STREAM(users_cdf)
                KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2;
                """
                        .formatted(kafka.bootstrapServers(), kafka.bootstrapServers()));
        Path result = dir.resolve("garbage.jsonl");
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
                                    "--parallelism",
                                    "2",
                                    "--materialize",
                                    result.toString()
                                });
        assertThat(code).as(err.toString()).isZero();
        assertThat(Files.readAllLines(result)).hasSize(7);
        List<String> letters = readTopic("users_dead_letters");
        // every letter has its Kafka coordinates, though the source declares none: those the
        // flow's decoding step writes (PARSE_ERROR) and those the engine writes (NULL_KEY)
        assertThat(letters)
                .hasSize(3)
                .allSatisfy(
                        l ->
                                assertThat(l)
                                        .contains(
                                                "\"flow\":\"apply_cdc\"",
                                                "\"source\":\"users_cdf\"",
                                                "\"topic\":\"users_with_garbage\"",
                                                "\"partition\":",
                                                "\"offset\":"));
        assertThat(letters)
                .filteredOn(l -> l.contains("\"reason\":\"PARSE_ERROR\""))
                .hasSize(2)
                .allSatisfy(l -> assertThat(l).contains("\"raw_record\":\""))
                .anySatisfy(l -> assertThat(l).contains("\"payload\":\"{this is not json\""))
                .anySatisfy(l -> assertThat(l).contains("one hundred"));
        assertThat(letters)
                .filteredOn(l -> l.contains("\"reason\":\"NULL_KEY\""))
                .singleElement()
                .asString()
                .contains("nobody");
    }

    static List<String> readTopic(String topic) {
        List<String> values = new ArrayList<>();
        consume(topic, r -> values.add(r.value()));
        return values;
    }

    /** Reads a topic that a finished flow wrote, from the start to its end offsets. */
    static void consume(String topic, Consumer<ConsumerRecord<String, String>> each) {
        kafka.readAll(topic).forEach(each);
    }

    /**
     * A plain kafka target with a changelog format (retract mode): -U and -D become Debezium
     * deletes.
     */
    @Test
    void kafkaTargetWithDebeziumJsonInRetractMode() throws Exception {
        kafka.createTopic("users_cdf_retract", 2);
        kafka.createTopic("users_history_debezium", 1);
        produce("users_cdf_retract", USERS, 2);
        Path flow = dir.resolve("retract.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'kafka', 'topic' = 'users_cdf_retract', 'properties.bootstrap.servers' = '%s',
                      'properties.group.id' = 'autocdc-test', 'scan.startup.mode' = 'earliest-offset',
                      'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE users_history
                WITH ('connector' = 'kafka', 'topic' = 'users_history_debezium', 'properties.bootstrap.servers' = '%s',
                      'format' = 'debezium-json');
                CREATE FLOW apply_cdc AS AUTO CDC INTO users_history FROM STREAM(users_cdf)
                KEYS (userId) APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2;
                """
                        .formatted(kafka.bootstrapServers(), kafka.bootstrapServers()));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(new String[] {"run", "--flow", flow.toString(), "--parallelism", "2"});
        assertThat(code).as(err.toString()).isZero();
        var json = new ObjectMapper();
        List<String> rows = new ArrayList<>();
        for (String message : readTopic("users_history_debezium")) {
            var node = json.readTree(message);
            String op = node.get("op").asText();
            if (op.equals("c")) {
                rows.add(node.get("after").toString());
            } else {
                assertThat(rows.remove(node.get("before").toString()))
                        .as("a delete retracts a present row: " + message)
                        .isTrue();
            }
        }
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Chihuahua\",\"__START_AT\":5,\"__END_AT\":6}",
                        "{\"userId\":123,\"name\":\"Isabel\",\"city\":\"Monterrey\",\"__START_AT\":1,\"__END_AT\":5}",
                        "{\"userId\":124,\"name\":\"Raul\",\"city\":\"Oaxaca\",\"__START_AT\":1,\"__END_AT\":null}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Guadalajara\",\"__START_AT\":6,\"__END_AT\":null}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Mexicali\",\"__START_AT\":5,\"__END_AT\":6}",
                        "{\"userId\":125,\"name\":\"Mercedes\",\"city\":\"Tijuana\",\"__START_AT\":2,\"__END_AT\":5}",
                        "{\"userId\":126,\"name\":\"Lily\",\"city\":\"Cancun\",\"__START_AT\":2,\"__END_AT\":null}");
    }

    /**
     * Sends the events round-robin over the partitions, so a key's events land in several
     * partitions.
     */
    static void produce(String topic, List<String> values, int partitions) throws Exception {
        kafka.produce(topic, values, partitions);
    }

    /**
     * The upsert topic materialized: the last value per key, keys whose last value is a tombstone
     * dropped.
     */
    static List<String> readUpsertTopic(String topic) {
        Map<String, String> table = new TreeMap<>();
        consume(
                topic,
                r -> {
                    if (r.value() == null) {
                        table.remove(r.key());
                    } else {
                        table.put(r.key(), r.value());
                    }
                });
        return new ArrayList<>(table.values());
    }
}
