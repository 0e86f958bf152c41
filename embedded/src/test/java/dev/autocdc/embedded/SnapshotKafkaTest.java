package dev.autocdc.embedded;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.plan.FlowJob;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.job.plan.TargetTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow from snapshots on an unbounded Kafka topic of two partitions, read by one source subtask
 * (so both partitions are splits of one reader): each partition delivers its share of every
 * snapshot in order, and a snapshot is applied once both partitions have passed it, by a row of a
 * later snapshot (the watermark) or by an end row; a snapshot that one partition has not passed yet
 * is not applied, whatever the other has delivered.
 */
class SnapshotKafkaTest {
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void broker() throws Exception {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    /**
     * Day 1: users 1-6 in city a; day 2: 3 moves to b, 5 and 6 leave, 7 arrives; day 3: 4 leaves, 7
     * moves to c.
     */
    private static final Map<Integer, List<int[]>> DAYS =
            Map.of(
                    1, List.of(u(1, 'a'), u(2, 'a'), u(3, 'a'), u(4, 'a'), u(5, 'a'), u(6, 'a')),
                    2, List.of(u(1, 'a'), u(2, 'a'), u(3, 'b'), u(4, 'a'), u(7, 'a')),
                    3, List.of(u(1, 'a'), u(2, 'a'), u(3, 'b'), u(7, 'c')));

    private static int[] u(int id, char city) {
        return new int[] {id, city};
    }

    private static final List<String> AFTER_DAY_2 =
            List.of(
                    row(1, 'a', 1, null),
                    row(2, 'a', 1, null),
                    row(3, 'a', 1, 2),
                    row(3, 'b', 2, null),
                    row(4, 'a', 1, null),
                    row(5, 'a', 1, 2),
                    row(6, 'a', 1, 2),
                    row(7, 'a', 2, null));

    private static final List<String> AFTER_DAY_3 =
            List.of(
                    row(1, 'a', 1, null),
                    row(2, 'a', 1, null),
                    row(3, 'a', 1, 2),
                    row(3, 'b', 2, null),
                    row(4, 'a', 1, 3),
                    row(5, 'a', 1, 2),
                    row(6, 'a', 1, 2),
                    row(7, 'a', 2, 3),
                    row(7, 'c', 3, null));

    private static String row(int id, char city, int start, Integer end) {
        return "{\"userId\": "
                + id
                + ", \"city\": \""
                + city
                + "\", \"__START_AT\": "
                + start
                + ", \"__END_AT\": "
                + end
                + "}";
    }

    /** The rows of one day on each partition (user id modulo 2), and end rows when asked. */
    private static void produceDay(String topic, int day, boolean endRows) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (int[] user : DAYS.getOrDefault(day, List.of())) {
                producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        user[0] % 2,
                                        null,
                                        "{\"userId\": %d, \"city\": \"%c\", \"exportDay\": %d}"
                                                .formatted(user[0], (char) user[1], day)))
                        .get();
            }
            if (endRows) {
                for (int partition = 0; partition < 2; partition++) {
                    producer.send(
                                    new ProducerRecord<>(
                                            topic,
                                            partition,
                                            null,
                                            "{\"kind\": \"END\", \"exportDay\": %d}"
                                                    .formatted(day)))
                            .get();
                }
            }
        }
    }

    /** Runs the flow until cancelled, materializing its changelog as it comes. */
    private static final class Running implements AutoCloseable {
        final TargetTable table;
        final JobClient job;
        final Thread reader;

        Running(String topic, boolean endRows) throws Exception {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
            String flow =
                    """
                    CREATE TABLE user_exports (userId INT, city STRING, exportDay INT, kind STRING)
                    WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'snapshots', 'scan.startup.mode' = 'earliest-offset',
                          'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE users_history;
                    CREATE FLOW users AS AUTO CDC INTO users_history
                    FROM SNAPSHOT(user_exports)
                    KEYS (userId)
                    SEQUENCE BY exportDay
                    %s
                    COLUMNS * EXCEPT (kind)
                    STORED AS SCD TYPE 2;
                    """
                            .formatted(
                                    topic,
                                    kafka.bootstrapServers(),
                                    endRows ? "APPLY AS SNAPSHOT END WHEN kind = 'END'" : "");
            List<PlannedFlow> planned = new FlowPlanner(tEnv).plan(FlowScript.parse(flow));
            CloseableIterator<RowData> changelog =
                    new FlowJob(tEnv, planned).attach().get("users_history").collectAsync();
            table = new TargetTable(planned.get(0).spec());
            job = env.executeAsync("snapshots from kafka");
            reader =
                    new Thread(
                            () -> {
                                try (changelog) {
                                    while (changelog.hasNext()) {
                                        RowData r = changelog.next();
                                        synchronized (table) {
                                            table.apply(r);
                                        }
                                    }
                                } catch (Exception e) {
                                    // the job was cancelled at the end of the test
                                }
                            });
            reader.setDaemon(true);
            reader.start();
        }

        List<String> rows() {
            synchronized (table) {
                return table.toJsonLines().lines().sorted().toList();
            }
        }

        /** Waits up to a minute for the table to hold exactly {@code expected}. */
        void await(List<String> expected) throws InterruptedException {
            List<String> sorted = expected.stream().sorted().toList();
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (!rows().equals(sorted) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(rows()).isEqualTo(sorted);
        }

        @Override
        public void close() throws Exception {
            job.cancel().get();
        }
    }

    /**
     * A topic with fewer partitions than the subtasks that would read it: {@code run} refuses it
     * before the job starts, naming the counts and the fix, since a subtask without a partition
     * never moves its watermark and the run would apply nothing.
     */
    @Test
    void runRefusesMoreReadingSubtasksThanPartitions(@TempDir Path dir) throws Exception {
        kafka.createTopic("exports_one_partition", 1);
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                "CREATE TABLE user_exports (userId INT, city STRING, exportDay INT)"
                        + " WITH ('connector' = 'kafka', 'topic' = 'exports_one_partition',"
                        + " 'properties.bootstrap.servers' = '"
                        + kafka.bootstrapServers()
                        + "', 'properties.group.id' = 'g', 'format' = 'json');\n"
                        + "CREATE OR REFRESH STREAMING TABLE users_history;\n"
                        + "CREATE FLOW users AS AUTO CDC INTO users_history"
                        + " FROM SNAPSHOT(user_exports) KEYS (userId) SEQUENCE BY exportDay"
                        + " STORED AS SCD TYPE 2;\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream(), true, UTF_8),
                                new PrintStream(err, true, UTF_8))
                        .run(new String[] {"run", "--flow", flow.toString(), "--parallelism", "2"});
        assertThat(code).isEqualTo(1);
        assertThat(err.toString(UTF_8))
                .contains(
                        "autocdc: flow users reads source table user_exports (topic"
                                + " 'exports_one_partition', 1 partition) with 2 subtasks")
                .contains("set 'scan.parallelism' = '1' on the table, or run with --parallelism 1");
    }

    @Test
    void aSnapshotIsAppliedWhenBothPartitionsHavePassedIt() throws Exception {
        kafka.createTopic("exports_by_watermark", 2);
        try (Running run = new Running("exports_by_watermark", false)) {
            for (int day = 1; day <= 3; day++) {
                produceDay("exports_by_watermark", day, false);
            }
            // days 1 and 2 are passed on both partitions by day 3's rows; day 3 is not complete
            run.await(AFTER_DAY_2);
            Thread.sleep(2000);
            assertThat(run.rows()).isEqualTo(AFTER_DAY_2.stream().sorted().toList());
            // day 4's first row on partition 1 alone does not complete day 3 on partition 0
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(
                            Map.of("bootstrap.servers", kafka.bootstrapServers()),
                            new StringSerializer(),
                            new StringSerializer())) {
                producer.send(
                                new ProducerRecord<>(
                                        "exports_by_watermark",
                                        1,
                                        null,
                                        "{\"userId\": 1, \"city\": \"a\", \"exportDay\": 4}"))
                        .get();
            }
            Thread.sleep(2000);
            assertThat(run.rows()).isEqualTo(AFTER_DAY_2.stream().sorted().toList());
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(
                            Map.of("bootstrap.servers", kafka.bootstrapServers()),
                            new StringSerializer(),
                            new StringSerializer())) {
                producer.send(
                                new ProducerRecord<>(
                                        "exports_by_watermark",
                                        0,
                                        null,
                                        "{\"userId\": 2, \"city\": \"a\", \"exportDay\": 4}"))
                        .get();
            }
            run.await(AFTER_DAY_3);
        }
    }

    @Test
    void endRowsCompleteASnapshotAtOnceAndAnnounceAnEmptyOne() throws Exception {
        kafka.createTopic("exports_by_end_rows", 2);
        try (Running run = new Running("exports_by_end_rows", true)) {
            produceDay("exports_by_end_rows", 1, true);
            produceDay("exports_by_end_rows", 2, true);
            produceDay("exports_by_end_rows", 3, false);
            // day 3 without its end rows: not complete
            run.await(AFTER_DAY_2);
            Thread.sleep(2000);
            assertThat(run.rows()).isEqualTo(AFTER_DAY_2.stream().sorted().toList());
            // its end rows complete it at once
            produceDay("exports_by_end_rows", 3, true);
            run.await(AFTER_DAY_3);
            // day 4 has no rows at all: its end rows announce it, and every user leaves
            produceDay("exports_by_end_rows", 4, true);
            List<String> afterDay4 = new ArrayList<>();
            for (String r : AFTER_DAY_3) {
                afterDay4.add(r.replace("\"__END_AT\": null", "\"__END_AT\": 4"));
            }
            run.await(afterDay4);
        }
    }
}
