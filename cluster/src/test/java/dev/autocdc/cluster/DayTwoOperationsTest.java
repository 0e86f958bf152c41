package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Day-two operations on a Flink cluster of separate processes (RocksDB, Paimon targets): erasing
 * keys through the flows' erasures table, for each target type, before and after a stop with a
 * savepoint and a restart; and a flow started from a savepoint that {@code autocdc bootstrap} wrote
 * from a stored history. Every expected row is typed by hand from semantics §3-5.
 */
@Order(3) // long: started first (docs/testing.md)
@ResourceLock(SharedCluster.FIRST)
class DayTwoOperationsTest {

    @TempDir Path dir;

    @Test
    void erasuresDeleteAKeysRowsInEveryTypeAcrossARestart() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 2);
            kafka.createTopic("erasures", 1);
            StringBuilder flows = new StringBuilder(header(warehouse, kafka));
            flows.append(
                    """
                    CREATE TABLE erasures (id INT)
                    WITH ('connector' = 'kafka', 'topic' = 'erasures', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'erasures', 'scan.startup.mode' = 'earliest-offset',
                          'format' = 'json');
                    """
                            .formatted(kafka.bootstrapServers()));
            for (String[] f :
                    new String[][] {
                        {"t1", "SCD TYPE 1", ""},
                        {"t2", "SCD TYPE 2", ""},
                        {"t3", "BITEMPORAL", " SYSTEM SEQUENCE BY sys"}
                    }) {
                flows.append(
                        """
                        SET 'autocdc.f_%s.erasures-table' = 'erasures';
                        CREATE OR REFRESH STREAMING TABLE lake.db.%s WITH ('bucket' = '1');
                        CREATE FLOW f_%s AS AUTO CDC INTO lake.db.%s FROM STREAM(src)
                        KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq%s
                        COLUMNS * EXCEPT (op, seq, sys) STORED AS %s;
                        """
                                .formatted(f[0], f[0], f[0], f[0], f[2], f[1]));
            }
            Path flow = dir.resolve("erase.sql");
            Files.writeString(flow, flows.toString());
            LocalCluster cluster = SharedCluster.get(DayTwoOperationsTest.class);
            try {
                String job = cluster.submit(dir.resolve("run-1.log"), flow, 2, null);
                Topics.append(
                        kafka,
                        "events",
                        List.of(
                                event(1, "a", 1, 1),
                                event(1, "b", 3, 2),
                                event(2, "c", 1, 1),
                                event(2, "d", 2, 3),
                                event(3, "e", 5, 4)),
                        2);
                awaitRows(warehouse, "t1", "1|b", "2|d", "3|e");
                awaitRows(
                        warehouse,
                        "t2",
                        "1|a|1|3",
                        "1|b|3|null",
                        "2|c|1|2",
                        "2|d|2|null",
                        "3|e|5|null");
                awaitRows(
                        warehouse,
                        "t3",
                        "1|a|1|null|1|2",
                        "1|a|1|3|2|null",
                        "1|b|3|null|2|null",
                        "2|c|1|null|1|3",
                        "2|c|1|2|3|null",
                        "2|d|2|null|3|null",
                        "3|e|5|null|4|null");

                Topics.append(kafka, "erasures", List.of("{\"id\": 1}"), 1);
                awaitRows(warehouse, "t1", "2|d", "3|e");
                awaitRows(warehouse, "t2", "2|c|1|2", "2|d|2|null", "3|e|5|null");
                awaitRows(
                        warehouse,
                        "t3",
                        "2|c|1|null|1|3",
                        "2|c|1|2|3|null",
                        "2|d|2|null|3|null",
                        "3|e|5|null|4|null");
                String savepoint = cluster.stopWithSavepoint(dir.resolve("stop.log"), job);

                cluster.submit(dir.resolve("run-2.log"), flow, 2, savepoint);
                // key 1 starts anew (its sequence 2 is before its erased history's last, 3); key 3
                // is erased after the restore
                Topics.append(
                        kafka, "events", List.of(event(1, "z", 2, 10), event(2, "x", 4, 11)), 2);
                Topics.append(kafka, "erasures", List.of("{\"id\": 3}"), 1);
                awaitRows(warehouse, "t1", "1|z", "2|x");
                awaitRows(warehouse, "t2", "1|z|2|null", "2|c|1|2", "2|d|2|4", "2|x|4|null");
                awaitRows(
                        warehouse,
                        "t3",
                        "1|z|2|null|10|null",
                        "2|c|1|null|1|3",
                        "2|c|1|2|3|null",
                        "2|d|2|null|3|11",
                        "2|d|2|4|11|null",
                        "2|x|4|null|11|null");
            } finally {
                SharedCluster.release(DayTwoOperationsTest.class);
            }
        }
    }

    /**
     * {@code autocdc bootstrap} writes the savepoint on this machine (Flink's State Processor API
     * 2.2.0); the cluster (2.2.1) starts the flow from it and extends the stored history.
     */
    @Test
    void aFlowStartsOnTheClusterFromABootstrappedHistory() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(
                "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')");
        tables.executeSql("CREATE DATABASE lake.db");
        tables.executeSql(
                "CREATE TABLE lake.db.t2 (id INT NOT NULL, v STRING, __START_AT INT NOT NULL,"
                        + " __END_AT INT, PRIMARY KEY (id, __START_AT) NOT ENFORCED)"
                        + " WITH ('bucket' = '1')");
        tables.executeSql(
                        "INSERT INTO lake.db.t2 VALUES (1, 'a', 1, 3), (1, 'b', 3,"
                                + " CAST(NULL AS INT)), (2, 'c', 1, 4)")
                .await();
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 2);
            Path flow = dir.resolve("bootstrap.sql");
            Files.writeString(
                    flow,
                    header(warehouse, kafka)
                            + """
                            CREATE OR REFRESH STREAMING TABLE lake.db.t2 WITH ('bucket' = '1');
                            CREATE FLOW f_t2 AS AUTO CDC INTO lake.db.t2 FROM STREAM(src)
                            KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
                            COLUMNS * EXCEPT (op, seq, sys) STORED AS SCD TYPE 2;
                            """);
            Path savepoint = dir.resolve("bootstrapped");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int exit =
                    new AutoCdcCli(
                                    new PrintStream(out, true, StandardCharsets.UTF_8),
                                    new PrintStream(out, true, StandardCharsets.UTF_8))
                            .run(
                                    new String[] {
                                        "bootstrap",
                                        "--flow",
                                        flow.toString(),
                                        "--from",
                                        "lake.db.t2",
                                        "--savepoint",
                                        savepoint.toString()
                                    });
            assertThat(exit).as(out.toString()).isZero();
            assertThat(out.toString()).contains("flow f_t2: 2 keys, 3 rows of lake.db.t2 loaded");

            LocalCluster cluster = SharedCluster.get(DayTwoOperationsTest.class);
            try {
                cluster.submit(dir.resolve("run.log"), flow, 2, savepoint.toUri().toString());
                // 1 moves on from its open row; 2, deleted at 4, comes back at 6
                Topics.append(
                        kafka, "events", List.of(event(1, "y", 5, 5), event(2, "w", 6, 6)), 2);
                awaitRows(
                        warehouse,
                        "t2",
                        "1|a|1|3",
                        "1|b|3|5",
                        "1|y|5|null",
                        "2|c|1|4",
                        "2|w|6|null");
            } finally {
                SharedCluster.release(DayTwoOperationsTest.class);
            }
        }
    }

    private static String header(Path warehouse, EmbeddedKafka kafka) {
        return """
        CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '%s');
        CREATE DATABASE IF NOT EXISTS lake.db;
        CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
        WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
              'properties.group.id' = 'day2', 'scan.startup.mode' = 'earliest-offset',
              'format' = 'json');
        """
                .formatted(warehouse.toUri(), kafka.bootstrapServers());
    }

    private static String event(int id, String v, int seq, int sys) {
        return "{\"id\": %d, \"v\": \"%s\", \"op\": \"UPSERT\", \"seq\": %d, \"sys\": %d}"
                .formatted(id, v, seq, sys);
    }

    /** Polls the Paimon table until it holds exactly these rows (columns joined by '|'). */
    private static void awaitRows(Path warehouse, String table, String... expected)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        List<String> rows = List.of();
        while (System.nanoTime() < deadline) {
            rows = read(warehouse, table);
            if (rows.size() == expected.length && rows.containsAll(List.of(expected))) {
                return;
            }
            Thread.sleep(1_000);
        }
        assertThat(rows).as("table " + table).containsExactlyInAnyOrder(expected);
    }

    /** Table {@code db.<table>}'s rows in Paimon, each as its values joined by "|". */
    private static List<String> read(Path warehouse, String table) throws Exception {
        return LakeTables.read(LakeTables.Lake.PAIMON, warehouse, table).stream()
                .map(row -> row.stream().map(String::valueOf).collect(Collectors.joining("|")))
                .toList();
    }
}
