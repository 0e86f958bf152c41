package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow's history in an Apache Paimon table survives a stop with a savepoint and a restart on a
 * Flink cluster of separate processes (Paimon and the Hadoop client in the cluster's lib, as a user
 * installs them): the restarted job resumes from its state and offsets, reading only the new
 * events, and the table, read with Paimon's own API, equals the reference over all of them.
 */
class LakeRestartTest {
    private static final String CONF = "execution.checkpointing.interval: 2s";

    @TempDir Path dir;

    @Test
    void historyInAPaimonTableSurvivesAStopWithSavepointAndARestart() throws Exception {
        HistoryWorkload w = new HistoryWorkload(41, 300, 10);
        int half = w.lines.size() / 2;
        Path warehouse = dir.resolve("warehouse");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("events", 4);
            Path flow = dir.resolve("lake.sql");
            Files.writeString(
                    flow,
                    """
                    CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '%s');
                    CREATE DATABASE IF NOT EXISTS lake.db;
                    CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
                    WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'lake', 'scan.startup.mode' = 'earliest-offset',
                          'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE lake.db.history WITH ('bucket' = '2');
                    CREATE FLOW lake_flow AS AUTO CDC INTO lake.db.history FROM STREAM(src)
                    KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
                    COLUMNS * EXCEPT (op, seq, sys) STORED AS SCD TYPE 2;
                    """
                            .formatted(warehouse.toUri(), kafka.bootstrapServers()));
            LocalCluster cluster = new LocalCluster(dir.resolve("cluster"), CONF, Map.of());
            try {
                cluster.start("--taskmanagers", "1", "--slots", "2");
                String job = cluster.submit(dir.resolve("run-1.log"), flow, 2, null);
                Topics.append(kafka, "events", w.lines.subList(0, half), 4);
                awaitTable(warehouse, w.expectedScd2(half));
                String savepoint = cluster.stopWithSavepoint(dir.resolve("stop.log"), job);

                job = cluster.submit(dir.resolve("run-2.log"), flow, 2, savepoint);
                Topics.append(kafka, "events", w.lines.subList(half, w.lines.size()), 4);
                awaitTable(warehouse, w.expectedScd2());
                assertThat(cluster.awaitRead(job, "AUTO CDC lake_flow", w.lines.size() - half))
                        .as("the restarted job resumes from its offsets")
                        .isEqualTo(w.lines.size() - half);
                System.out.println(
                        "LakeRestartTest: "
                                + w.lines.size()
                                + " events in two runs, "
                                + w.expectedScd2().size()
                                + " rows in the Paimon table, equal to the reference");
            } finally {
                cluster.stop();
            }
        }
    }

    /** Polls the table until it holds exactly the expected rows (Paimon commits at checkpoints). */
    private static void awaitTable(Path warehouse, Set<List<Object>> expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Set<List<Object>> rows = Set.of();
        while (System.nanoTime() < deadline) {
            rows = read(warehouse);
            if (rows.equals(expected)) {
                return;
            }
            Thread.sleep(1_000);
        }
        assertThat(rows).as("the Paimon table").containsExactlyInAnyOrderElementsOf(expected);
    }

    /** The table's rows as the reference model writes them: id, v, start, end; none: empty. */
    private static Set<List<Object>> read(Path warehouse) throws Exception {
        Options options = new Options();
        options.set("warehouse", warehouse.toUri().toString());
        Set<List<Object>> rows = new HashSet<>();
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            Table table;
            try {
                table = catalog.getTable(Identifier.create("db", "history"));
            } catch (Catalog.TableNotExistException notYet) {
                return rows;
            }
            ReadBuilder read = table.newReadBuilder();
            try (RecordReader<InternalRow> reader =
                    read.newRead().createReader(read.newScan().plan())) {
                reader.forEachRemaining(
                        r ->
                                rows.add(
                                        new ArrayList<>(
                                                Arrays.asList(
                                                        r.getInt(0),
                                                        r.getString(1).toString(),
                                                        r.getInt(2),
                                                        r.isNullAt(3) ? null : r.getInt(3)))));
            }
        }
        return rows;
    }
}
