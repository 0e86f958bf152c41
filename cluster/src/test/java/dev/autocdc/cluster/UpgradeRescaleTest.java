package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow's history survives what operators do to a running job: stop with a savepoint, add a flow
 * to the file, restart at another parallelism (1 → 2 → 1 → 4 under {@code pipeline.max-parallelism}
 * 128, as {@code deploy/local-cluster} sets it). Every restore is strict (no {@code
 * --allowNonRestoredState}): each operator's state, Kafka offsets and transactional sink state
 * included, finds its operator again. After each step the targets equal the reference model over
 * the events written so far, which is what an uninterrupted run gives; the first flow reads only
 * the new events after each restore (its offsets were kept), the added flow reads the topic from
 * its start.
 */
class UpgradeRescaleTest {
    private static final String CONF = "execution.checkpointing.interval: 2s";

    private static final int BATCHES = 4;

    @TempDir Path dir;

    @Test
    void savepointsKeepEveryFlowAcrossAnAddedFlowAndRescaling() throws Exception {
        HistoryWorkload w = new HistoryWorkload(25, 500, 12);
        int batch = w.lines.size() / BATCHES;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 4);
            kafka.createTopic("scd2_target", 2);
            kafka.createTopic("bt_target", 2);
            Path one = dir.resolve("one-flow.sql");
            Path two = dir.resolve("two-flows.sql");
            String source = source(kafka.bootstrapServers());
            String scd2 = flow(kafka.bootstrapServers(), "scd2");
            String bitemporal = flow(kafka.bootstrapServers(), "bt");
            Files.writeString(one, source + scd2);
            // the new flow comes first in the file: every operator the planner makes moves
            Files.writeString(two, source + bitemporal + scd2);
            LocalCluster cluster = new LocalCluster(dir.resolve("cluster"), CONF, Map.of());
            List<String> figures = new ArrayList<>();
            try {
                cluster.start("--taskmanagers", "2", "--slots", "2");
                String savepoint = null;
                int[] parallelism = {1, 2, 1, 4};
                for (int step = 0; step < BATCHES; step++) {
                    Path file = step == 0 ? one : two;
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
                            HistoryWorkload.SCD2_COLUMNS,
                            w.expectedScd2(written),
                            converge);
                    // the first flow resumes from its offsets: this run reads one batch
                    assertThat(cluster.awaitRead(job, "AUTO CDC scd2_flow", batch))
                            .isEqualTo(batch);
                    if (step > 0) {
                        Topics.awaitTable(
                                kafka,
                                "bt_target",
                                Topics.Read.UPSERT,
                                HistoryWorkload.BITEMPORAL_COLUMNS,
                                w.expectedBitemporal(written),
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
            } finally {
                cluster.stop();
                System.out.println("UpgradeRescaleTest: " + String.join("; ", figures));
            }
        }
    }

    private static String source(String bootstrap) {
        return """
        CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
        WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
              'properties.group.id' = 'upgrade', 'scan.startup.mode' = 'earliest-offset',
              'format' = 'json');
        """
                .formatted(bootstrap);
    }

    /** An SCD type 2 or bitemporal flow into an exactly-once upsert-kafka topic. */
    private static String flow(String bootstrap, String type) {
        boolean bt = type.equals("bt");
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
                .formatted(
                        type,
                        bootstrap,
                        bt ? "SYSTEM SEQUENCE BY sys" : "",
                        bt ? "BITEMPORAL" : "SCD TYPE 2");
    }
}
