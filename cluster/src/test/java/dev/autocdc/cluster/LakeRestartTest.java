package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.cluster.LakeTables.Lake;
import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A flow's history in an Apache Paimon or Apache Iceberg table survives a stop with a savepoint and
 * a restart on a Flink cluster of separate processes (the format's jar and the Hadoop client in the
 * cluster's lib, as a user installs them): the restarted job resumes from its state and offsets,
 * reading only the new events, and the table, read with the format's own Java API, equals the
 * reference over all of them.
 */
@ResourceLock(SharedCluster.SECOND)
class LakeRestartTest {

    private static final Duration WAIT = Duration.ofMinutes(3);

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(Lake.class)
    void historySurvivesAStopWithSavepointAndARestart(Lake lake) throws Exception {
        HistoryWorkload w = new HistoryWorkload(41, 300, 10);
        int half = w.lines.size() / 2;
        Path warehouse = dir.resolve("warehouse");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 4);
            Path flow = dir.resolve("lake.sql");
            Files.writeString(
                    flow,
                    """
                    %sCREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
                    WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'lake', 'scan.startup.mode' = 'earliest-offset',
                          'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE lake.db.history WITH (%s);
                    CREATE FLOW lake_flow AS AUTO CDC INTO lake.db.history FROM STREAM(src)
                    KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
                    COLUMNS * EXCEPT (op, seq, sys) STORED AS SCD TYPE 2;
                    """
                            .formatted(
                                    lake.createCatalog("lake", warehouse),
                                    kafka.bootstrapServers(),
                                    lake.tableOptions));
            LocalCluster cluster = SharedCluster.get(LakeRestartTest.class);
            try {
                String job = cluster.submit(dir.resolve("run-1.log"), flow, 2, null);
                Topics.append(kafka, "events", w.lines.subList(0, half), 4);
                LakeTables.await(lake, warehouse, "history", w.expectedScd2(half), WAIT);
                String savepoint = cluster.stopWithSavepoint(dir.resolve("stop.log"), job);

                job = cluster.submit(dir.resolve("run-2.log"), flow, 2, savepoint);
                Topics.append(kafka, "events", w.lines.subList(half, w.lines.size()), 4);
                LakeTables.await(lake, warehouse, "history", w.expectedScd2(), WAIT);
                assertThat(cluster.awaitRead(job, "AUTO CDC lake_flow", w.lines.size() - half))
                        .as("the restarted job resumes from its offsets")
                        .isEqualTo(w.lines.size() - half);
                System.out.println(
                        "LakeRestartTest: "
                                + w.lines.size()
                                + " events in two runs, "
                                + w.expectedScd2().size()
                                + " rows in the "
                                + lake
                                + " table, equal to the reference");
            } finally {
                SharedCluster.release(LakeRestartTest.class);
            }
        }
    }
}
