package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A flow's history survives what operators do to a running job: stop with a savepoint, add a flow
 * to the file, restart at another parallelism (1 → 2 → 1 → 4 under {@code pipeline.max-parallelism}
 * 128, as {@code deploy/local-cluster} sets it). Every restore is strict (no {@code
 * --allowNonRestoredState}): each operator's state, Kafka offsets and transactional sink state
 * included, finds its operator again. After each step the targets equal the reference model over
 * the events written so far, which is what an uninterrupted run gives; the first flow reads only
 * the new events after each restore (its offsets were kept), the added flow reads the topic from
 * its start. Then the source gains a nullable column at its end, and so both targets: the stored
 * rows read it as null, the new events fill it, and the targets equal the reference over the events
 * with the column null before the change. Last, a flow's target type changes: the restore is
 * refused, and the job's exceptions name the change.
 */
@Order(2) // long: started first (docs/testing.md)
@ResourceLock(SharedCluster.SECOND)
class UpgradeRescaleTest {

    private static final int BATCHES = 5;

    @TempDir Path dir;

    @Test
    void savepointsKeepEveryFlowAcrossAnAddedFlowRescalingAndAnAddedColumn() throws Exception {
        HistoryWorkload w = new HistoryWorkload(25, 500, 12);
        int batch = w.lines.size() / BATCHES;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 4);
            kafka.createTopic("scd2_target", 2);
            kafka.createTopic("bt_target", 2);
            Path one = dir.resolve("one-flow.sql");
            Path two = dir.resolve("two-flows.sql");
            Path wide = dir.resolve("column-added.sql");
            Path retyped = dir.resolve("target-type-changed.sql");
            String bootstrap = kafka.bootstrapServers();
            String scd2 = flow(bootstrap, "scd2", "SCD TYPE 2");
            String bitemporal = flow(bootstrap, "bt", "BITEMPORAL");
            Files.writeString(one, source(bootstrap, "") + scd2);
            // the new flow comes first in the file: every operator the planner makes moves
            Files.writeString(two, source(bootstrap, "") + bitemporal + scd2);
            // the source gains a nullable column at its end, and so both targets
            Files.writeString(wide, source(bootstrap, ", w STRING") + bitemporal + scd2);
            Files.writeString(
                    retyped,
                    source(bootstrap, ", w STRING") + flow(bootstrap, "bt", "SCD TYPE 2") + scd2);
            LocalCluster cluster = SharedCluster.get(UpgradeRescaleTest.class);
            List<String> figures = new ArrayList<>();
            try {
                String savepoint = null;
                Path[] files = {one, two, two, two, wide};
                int[] parallelism = {1, 2, 1, 4, 2};
                int added = 4 * batch; // the events before step 5 were read without w
                for (int step = 0; step < BATCHES; step++) {
                    Path file = files[step];
                    boolean withW = file == wide;
                    String job =
                            cluster.submit(
                                    dir.resolve("run-" + step + ".log"),
                                    file,
                                    parallelism[step],
                                    savepoint);
                    Topics.append(
                            kafka, "events", w.lines.subList(step * batch, (step + 1) * batch), 4);
                    int written = (step + 1) * batch;
                    Duration converge = Duration.ofMinutes(3);
                    Topics.awaitTable(
                            kafka,
                            "scd2_target",
                            Topics.Read.UPSERT,
                            withW
                                    ? HistoryWorkload.SCD2_WIDE_COLUMNS
                                    : HistoryWorkload.SCD2_COLUMNS,
                            withW ? w.expectedScd2(written, added) : w.expectedScd2(written),
                            converge);
                    // the first flow resumes from its offsets: this run reads one batch
                    assertThat(cluster.awaitRead(job, "AUTO CDC scd2_flow", batch))
                            .isEqualTo(batch);
                    if (step > 0) {
                        Topics.awaitTable(
                                kafka,
                                "bt_target",
                                Topics.Read.UPSERT,
                                withW
                                        ? HistoryWorkload.BITEMPORAL_WIDE_COLUMNS
                                        : HistoryWorkload.BITEMPORAL_COLUMNS,
                                withW
                                        ? w.expectedBitemporal(written, added)
                                        : w.expectedBitemporal(written),
                                converge);
                        int read = step == 1 ? written : batch; // from the topic's start once
                        assertThat(cluster.awaitRead(job, "AUTO CDC bt_flow", read))
                                .isEqualTo(read);
                    }
                    savepoint =
                            cluster.stopWithSavepoint(dir.resolve("stop-" + step + ".log"), job);
                    figures.add(
                            "step %d (%s, parallelism %d): %d events in, targets equal the reference"
                                    .formatted(
                                            step + 1,
                                            file.getFileName(),
                                            parallelism[step],
                                            written));
                }
                // another target type for a flow: its restore fails, naming the change
                String job = cluster.submit(dir.resolve("run-refused.log"), retyped, 2, savepoint);
                String refusal =
                        "Flow bt_flow cannot restore its state: the target type (STORED AS) changed"
                                + " from BITEMPORAL to SCD2";
                assertThat(cluster.awaitException(job, refusal, Duration.ofMinutes(2)))
                        .as("the job's exceptions name the change")
                        .isTrue();
                cluster.cancel(job);
                figures.add("step 6 (" + retyped.getFileName() + "): refused, the change named");
            } finally {
                SharedCluster.release(UpgradeRescaleTest.class);
                System.out.println("UpgradeRescaleTest: " + String.join("; ", figures));
            }
        }
    }

    /** The source table, with {@code more} columns after its first ones. */
    private static String source(String bootstrap, String more) {
        return """
        CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT%s)
        WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
              'properties.group.id' = 'upgrade', 'scan.startup.mode' = 'earliest-offset',
              'format' = 'json');
        """
                .formatted(more, bootstrap);
    }

    /**
     * Flow {@code name}_flow into an exactly-once upsert-kafka topic {@code name}_target, stored as
     * {@code storedAs}.
     */
    private static String flow(String bootstrap, String name, String storedAs) {
        boolean bt = storedAs.equals("BITEMPORAL");
        return """
        CREATE OR REFRESH STREAMING TABLE %1$s_target
        WITH ('connector' = 'upsert-kafka', 'topic' = '%1$s_target', 'properties.bootstrap.servers' = '%2$s',
              'key.format' = 'json', 'value.format' = 'json',
              'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'upgrade-%1$s',
              'properties.transaction.timeout.ms' = '600000');
        CREATE FLOW %1$s_flow AS AUTO CDC INTO %1$s_target FROM STREAM(src)
        KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq %3$s
        COLUMNS * EXCEPT (op, seq, sys) STORED AS %4$s;
        """
                .formatted(name, bootstrap, bt ? "SYSTEM SEQUENCE BY sys" : "", storedAs);
    }
}
