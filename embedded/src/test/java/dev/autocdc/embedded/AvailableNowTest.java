package dev.autocdc.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Triggered runs ({@code run --available-now}): three runs, with new events written to the topic
 * between them, each reading up to the topic's ends at its start and stopping with a savepoint that
 * the next starts from, equal one continuous run over every event; the runs' engines took in every
 * event exactly once between them. A source it cannot bound is refused, naming it.
 */
class AvailableNowTest {
    private static final int BATCH = 2_000;
    private static final Pattern EVENTS_IN =
            Pattern.compile("autocdc: progress: ([0-9,]+) events in");

    @TempDir Path dir;

    @Test
    void threeTriggeredRunsEqualOneContinuousRun() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("changes", 3);
            kafka.createTopic("history_triggered", 1);
            kafka.createTopic("history_continuous", 1);
            Random random = new Random(7);
            Path savepoints = dir.resolve("savepoints");
            Path triggered = flow(kafka, "triggered", "history_triggered", "");
            long applied = 0;
            for (int run = 0; run < 3; run++) {
                produce(kafka, random, run * BATCH);
                String err =
                        cli(
                                "run",
                                "--flow",
                                triggered.toString(),
                                "--parallelism",
                                "2",
                                "--available-now",
                                "--savepoint-dir",
                                savepoints.toString());
                assertThat(err).contains("autocdc: savepoint ");
                if (run > 0) {
                    assertThat(err).containsPattern("starting from savepoint file:" + savepoints);
                }
                applied += eventsIn(err);
            }
            assertThat(applied).as("events the three runs took in").isEqualTo(3L * BATCH);
            Path continuous =
                    flow(
                            kafka,
                            "continuous",
                            "history_continuous",
                            ", 'scan.bounded.mode' = 'latest-offset'");
            cli("run", "--flow", continuous.toString(), "--parallelism", "2");
            List<String> history = upsertTopic(kafka, "history_triggered");
            assertThat(history).hasSizeGreaterThan(BATCH);
            assertThat(history).isEqualTo(upsertTopic(kafka, "history_continuous"));
        }
    }

    /**
     * A topic written with transactions ends in a commit marker, and here in an aborted
     * transaction's records too, which a read_committed consumer does not return: the run still
     * ends, and applies the committed events alone.
     */
    @Test
    @Timeout(180)
    void aTopicWrittenWithTransactionsEndsTheRunToo() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("changes", 3);
            kafka.createTopic("history_tx", 1);
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(
                            Map.of(
                                    "bootstrap.servers",
                                    kafka.bootstrapServers(),
                                    "transactional.id",
                                    "writer"),
                            new StringSerializer(),
                            new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                for (int i = 0; i < 300; i++) {
                    producer.send(new ProducerRecord<>("changes", i % 3, null, event(i % 50, i)));
                }
                producer.commitTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("changes", 0, null, event(999, 1000)));
                producer.flush();
                producer.abortTransaction();
            }
            String err =
                    cli(
                            "run",
                            "--flow",
                            flow(
                                            kafka,
                                            "tx",
                                            "history_tx",
                                            ", 'properties.isolation.level' = 'read_committed'")
                                    .toString(),
                            "--available-now",
                            "--savepoint-dir",
                            dir.resolve("tx-savepoints").toString());
            assertThat(eventsIn(err)).isEqualTo(300);
            assertThat(upsertTopic(kafka, "history_tx")).noneMatch(r -> r.contains("999"));
        }
    }

    private static String event(int key, int i) {
        return "{\"userId\": %d, \"name\": \"n%d\", \"operation\": \"UPSERT\", \"sequenceNum\": %d}"
                .formatted(key, i, i + 1);
    }

    /** A first run that would start past the records it must read is refused, naming the fix. */
    @Test
    void aFirstRunAtTheLatestOffsetsIsRefused() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("changes", 1);
            Path flow = flow(kafka, "latest", "history_latest", "");
            Files.writeString(
                    flow, Files.readString(flow).replace("'earliest-offset'", "'latest-offset'"));
            assertThat(refused(flow))
                    .contains("table changes starts at 'latest-offset'", "'earliest-offset'");
        }
    }

    @Test
    void aSourceItCannotBoundIsRefusedNamingIt() throws Exception {
        Path files = Files.createDirectories(dir.resolve("in"));
        Path flow = dir.resolve("files.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE changes (userId INT, name STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json',
                      'source.monitor-interval' = '1 s');
                CREATE OR REFRESH STREAMING TABLE history;
                CREATE FLOW apply AS AUTO CDC INTO history FROM STREAM(changes) KEYS (userId)
                APPLY AS DELETE WHEN operation = 'DELETE' SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2;
                """
                        .formatted(files));
        assertThat(refused(flow))
                .contains("table changes is a 'filesystem' table, which it cannot bound");
    }

    /** A triggered run of {@code flow} that fails; returns what it wrote to standard error. */
    private String refused(Path flow) {
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
                                    "--available-now",
                                    "--savepoint-dir",
                                    dir.resolve("refused-savepoints").toString()
                                });
        assertThat(code).isNotZero();
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path flow(EmbeddedKafka kafka, String group, String target, String bound)
            throws Exception {
        Path flow = dir.resolve(group + ".sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE changes (userId INT, name STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'kafka', 'topic' = 'changes', 'properties.bootstrap.servers' = '%s',
                      'properties.group.id' = '%s', 'scan.startup.mode' = 'earliest-offset',
                      'format' = 'json'%s);
                CREATE OR REFRESH STREAMING TABLE history
                WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                      'key.format' = 'json', 'value.format' = 'json');
                CREATE FLOW apply AS AUTO CDC INTO history FROM STREAM(changes) KEYS (userId)
                APPLY AS DELETE WHEN operation = 'DELETE' SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE 2;
                """
                        .formatted(
                                kafka.bootstrapServers(),
                                group,
                                bound,
                                target,
                                kafka.bootstrapServers()));
        return flow;
    }

    /** A batch of events over 200 keys, one in ten a delete, spread over the partitions. */
    private static void produce(EmbeddedKafka kafka, Random random, int first) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (int i = first; i < first + BATCH; i++) {
                int key = random.nextInt(200);
                producer.send(
                        new ProducerRecord<>(
                                "changes",
                                random.nextInt(3),
                                null,
                                "{\"userId\": %d, \"name\": \"n%d\", \"operation\": \"%s\", \"sequenceNum\": %d}"
                                        .formatted(
                                                key,
                                                i,
                                                random.nextInt(10) == 0 ? "DELETE" : "UPSERT",
                                                i + 1)));
            }
        }
    }

    /** Runs the CLI; returns what it wrote to standard error, once it succeeded. */
    private static String cli(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(args);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text).isZero();
        return text;
    }

    /** The events the run's engines took in, from its last progress line. */
    private static long eventsIn(String err) {
        Matcher m = EVENTS_IN.matcher(err);
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1).replace(",", ""));
        }
        assertThat(last).as(err).isNotNegative();
        return last;
    }

    /** An upsert-kafka topic materialized: the last value per key, sorted. */
    private static List<String> upsertTopic(EmbeddedKafka kafka, String topic) {
        Map<String, String> table = new TreeMap<>();
        for (ConsumerRecord<String, String> r : kafka.readAll(topic)) {
            if (r.value() == null) {
                table.remove(r.key());
            } else {
                table.put(r.key(), r.value());
            }
        }
        return new ArrayList<>(table.values());
    }
}
