package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The upgrade promise for whole jobs: a savepoint that an earlier build took of a flow job (Kafka
 * source offsets, the engine's state of each target type, the exactly-once Kafka sinks' state, all
 * under the uids of {@code StableUids}) restores into this build strictly (no {@code
 * --allowNonRestoredState}), and the job goes on as if it had never stopped.
 *
 * <p>Each directory under {@code src/test/resources/job-savepoints/} was written by one build
 * (named by date and commit): {@code flow.sql} (three flows, SCD type 1, type 2 and bitemporal,
 * into exactly-once upsert-kafka topics; {@code @BOOTSTRAP@} stands for the broker) and {@code
 * savepoint/}, taken with {@code flink stop} after the first half of {@link #workload()} was
 * applied. The test writes that half again to a new broker (same partitions, so the same offsets),
 * restores, writes the second half: each target topic, applied to the reference table of the first
 * half, equals the reference over all events, and each flow read only the second half.
 *
 * <p>To add the current build's savepoint: {@code -Dautocdc.job-savepoints.write=<date>-<commit>}
 * (then commit the directory).
 */
@ResourceLock(SharedCluster.FIRST)
class JobSavepointCompatibilityTest {
    static final Path SAVEPOINTS = Path.of("src", "test", "resources", "job-savepoints");

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final List<String> TARGETS = List.of("scd1", "scd2", "bt");

    @TempDir Path dir;

    /** 2,000 events over 200 keys, late in both timelines, 10% deletes; fixed forever. */
    static HistoryWorkload workload() {
        return new HistoryWorkload(35, 200, 10);
    }

    @Test
    void savepointsOfEarlierBuildsRestoreAndTheFlowsGoOn() throws Exception {
        String write = System.getProperty("autocdc.job-savepoints.write");
        if (write != null) {
            write(SAVEPOINTS.resolve(write));
        }
        List<Path> builds;
        try (Stream<Path> s = Files.list(SAVEPOINTS)) {
            builds = s.sorted().toList();
        }
        assertThat(builds).isNotEmpty();
        for (Path build : builds) {
            restore(build);
        }
    }

    private void restore(Path build) throws Exception {
        HistoryWorkload w = workload();
        int half = w.lines.size() / 2;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            topics(kafka);
            Topics.append(kafka, "events", w.lines.subList(0, half), 4);
            Path flow = dir.resolve(build.getFileName() + ".sql");
            Files.writeString(
                    flow,
                    keepTombstones()
                            + Files.readString(build.resolve("flow.sql"))
                                    .replace("@BOOTSTRAP@", kafka.bootstrapServers()));
            LocalCluster cluster = SharedCluster.get(JobSavepointCompatibilityTest.class);
            try {
                String job =
                        cluster.submit(
                                dir.resolve("run-" + build.getFileName() + ".log"),
                                flow,
                                2,
                                build.resolve("savepoint").toAbsolutePath().toUri().toString());
                awaitTasksRunning(cluster, job);
                Topics.append(kafka, "events", w.lines.subList(half, w.lines.size()), 4);
                awaitTargets(kafka, w, half, w.lines.size());
                int rest = w.lines.size() - half;
                for (String t : TARGETS) {
                    assertThat(cluster.awaitRead(job, "AUTO CDC " + t + "_flow", rest))
                            .as("events %s_flow read after restoring %s", t, build)
                            .isEqualTo(rest);
                }
            } finally {
                SharedCluster.release(JobSavepointCompatibilityTest.class);
            }
        }
    }

    /**
     * Tombstones kept forever in the restored run. A savepoint's deleted keys carry expiries due
     * two days (the default retention, processing time) after it was taken; restored later, they
     * would fall due at once and the keys would be forgotten, so that older events of the second
     * half would start them anew (SCD1) or go to the late events (SCD2, bitemporal), which the
     * reference does not model. A run with `forever` drops those expiries and keeps the keys
     * (docs/semantics.md).
     */
    private static String keepTombstones() {
        StringBuilder sql = new StringBuilder();
        for (String t : TARGETS) {
            sql.append("SET 'autocdc.%s_flow.tombstone-retention' = 'forever';%n".formatted(t));
        }
        return sql.toString();
    }

    /** Runs the flows over the first half and keeps their savepoint and flow file in {@code to}. */
    private void write(Path to) throws Exception {
        HistoryWorkload w = workload();
        int half = w.lines.size() / 2;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            topics(kafka);
            Topics.append(kafka, "events", w.lines.subList(0, half), 4);
            Files.createDirectories(to);
            Files.writeString(to.resolve("flow.sql"), flows());
            Path flow = dir.resolve("write.sql");
            Files.writeString(flow, flows().replace("@BOOTSTRAP@", kafka.bootstrapServers()));
            LocalCluster cluster = SharedCluster.get(JobSavepointCompatibilityTest.class);
            try {
                String job = cluster.submit(dir.resolve("run-write.log"), flow, 2, null);
                awaitTargets(kafka, w, 0, half);
                Path savepoint =
                        Path.of(
                                URI.create(
                                        cluster.stopWithSavepoint(dir.resolve("stop.log"), job)));
                copy(savepoint, to.resolve("savepoint"));
            } finally {
                SharedCluster.release(JobSavepointCompatibilityTest.class);
            }
        }
    }

    /**
     * Waits until each target topic, applied to the reference table of the first {@code from}
     * events, equals the reference table of the first {@code to}.
     */
    private static void awaitTargets(EmbeddedKafka kafka, HistoryWorkload w, int from, int to)
            throws Exception {
        Duration converge = Duration.ofMinutes(3);
        Topics.awaitTable(
                kafka,
                "scd1_target",
                Topics.Read.UPSERT,
                HistoryWorkload.SCD1_COLUMNS,
                w.expectedScd1(from),
                w.expectedScd1(to),
                converge);
        Topics.awaitTable(
                kafka,
                "scd2_target",
                Topics.Read.UPSERT,
                HistoryWorkload.SCD2_COLUMNS,
                w.expectedScd2(from),
                w.expectedScd2(to),
                converge);
        Topics.awaitTable(
                kafka,
                "bt_target",
                Topics.Read.UPSERT,
                HistoryWorkload.BITEMPORAL_COLUMNS,
                w.expectedBitemporal(from),
                w.expectedBitemporal(to),
                converge);
    }

    /** A restore fails the tasks, not the submission: the job must run with every task. */
    private static void awaitTasksRunning(LocalCluster cluster, String job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        String seen = "";
        while (System.nanoTime() < deadline) {
            seen = cluster.get("/jobs/" + job);
            JsonNode n = JSON.readTree(seen);
            boolean all = n.path("vertices").size() > 0;
            for (JsonNode v : n.path("vertices")) {
                all &= "RUNNING".equals(v.path("status").asText());
            }
            if (all) {
                return;
            }
            assertThat(n.path("state").asText()).as(seen).isNotIn("FAILED", "RESTARTING");
            Thread.sleep(500);
        }
        throw new AssertionError("tasks of " + job + " not running: " + seen);
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    private static void topics(EmbeddedKafka kafka) throws Exception {
        kafka.createTopic("events", 4);
        for (String t : TARGETS) {
            kafka.createTopic(t + "_target", 2);
        }
    }

    /** The flow file, as the build that writes a savepoint has it. */
    private static String flows() {
        StringBuilder sql =
                new StringBuilder(
                        """
                        CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
                        WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '@BOOTSTRAP@',
                              'properties.group.id' = 'compat', 'scan.startup.mode' = 'earliest-offset',
                              'format' = 'json');
                        """);
        for (String t : TARGETS) {
            sql.append(
                    """
                    CREATE OR REFRESH STREAMING TABLE %1$s_target
                    WITH ('connector' = 'upsert-kafka', 'topic' = '%1$s_target',
                          'properties.bootstrap.servers' = '@BOOTSTRAP@', 'key.format' = 'json', 'value.format' = 'json',
                          'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'compat-%1$s',
                          'properties.transaction.timeout.ms' = '600000');
                    CREATE FLOW %1$s_flow AS AUTO CDC INTO %1$s_target FROM STREAM(src)
                    KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq %2$s
                    COLUMNS * EXCEPT (op, seq, sys) STORED AS %3$s;
                    """
                            .formatted(
                                    t,
                                    t.equals("bt") ? "SYSTEM SEQUENCE BY sys" : "",
                                    switch (t) {
                                        case "scd1" -> "SCD TYPE 1";
                                        case "scd2" -> "SCD TYPE 2";
                                        default -> "BITEMPORAL";
                                    }));
        }
        return sql.toString();
    }
}
