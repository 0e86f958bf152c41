package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A flow's history in an Apache Paimon or Apache Iceberg table survives a stop with a savepoint and
 * a restart on a Flink cluster of separate processes (the format's jar and the Hadoop client in the
 * cluster's lib, as a user installs them): the restarted job resumes from its state and offsets,
 * reading only the new events, and the table, read with the format's own Java API, equals the
 * reference over all of them.
 */
class LakeRestartTest {

    @TempDir Path dir;

    /** A lakehouse format: its catalog, the target's table options, and its own reader. */
    enum Lake {
        PAIMON("'type' = 'paimon'", "'bucket' = '2'"),
        ICEBERG(
                "'type' = 'iceberg', 'catalog-type' = 'hadoop'",
                "'format-version' = '2', 'write.upsert.enabled' = 'true'");

        final String catalogOptions;
        final String tableOptions;

        Lake(String catalogOptions, String tableOptions) {
            this.catalogOptions = catalogOptions;
            this.tableOptions = tableOptions;
        }
    }

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
                    CREATE CATALOG lake WITH (%s, 'warehouse' = '%s');
                    CREATE DATABASE IF NOT EXISTS lake.db;
                    CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
                    WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
                          'properties.group.id' = 'lake', 'scan.startup.mode' = 'earliest-offset',
                          'format' = 'json');
                    CREATE OR REFRESH STREAMING TABLE lake.db.history WITH (%s);
                    CREATE FLOW lake_flow AS AUTO CDC INTO lake.db.history FROM STREAM(src)
                    KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
                    COLUMNS * EXCEPT (op, seq, sys) STORED AS SCD TYPE 2;
                    """
                            .formatted(
                                    lake.catalogOptions,
                                    warehouse.toUri(),
                                    kafka.bootstrapServers(),
                                    lake.tableOptions));
            LocalCluster cluster = SharedCluster.get();
            try {
                String job = cluster.submit(dir.resolve("run-1.log"), flow, 2, null);
                Topics.append(kafka, "events", w.lines.subList(0, half), 4);
                awaitTable(lake, warehouse, w.expectedScd2(half));
                String savepoint = cluster.stopWithSavepoint(dir.resolve("stop.log"), job);

                job = cluster.submit(dir.resolve("run-2.log"), flow, 2, savepoint);
                Topics.append(kafka, "events", w.lines.subList(half, w.lines.size()), 4);
                awaitTable(lake, warehouse, w.expectedScd2());
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
                SharedCluster.release();
            }
        }
    }

    /** Polls the table until it holds exactly the expected rows (both commit at checkpoints). */
    private static void awaitTable(Lake lake, Path warehouse, Set<List<Object>> expected)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Set<List<Object>> rows = Set.of();
        while (System.nanoTime() < deadline) {
            rows = lake == Lake.PAIMON ? readPaimon(warehouse) : readIceberg(warehouse);
            if (rows.equals(expected)) {
                return;
            }
            Thread.sleep(1_000);
        }
        assertThat(rows).as("the " + lake + " table").containsExactlyInAnyOrderElementsOf(expected);
    }

    /** The table's rows as the reference model writes them: id, v, start, end; none: empty. */
    private static Set<List<Object>> readIceberg(Path warehouse) throws Exception {
        Set<List<Object>> rows = new HashSet<>();
        try (HadoopCatalog catalog =
                new HadoopCatalog(new Configuration(), warehouse.toUri().toString())) {
            TableIdentifier id = TableIdentifier.of("db", "history");
            if (!catalog.tableExists(id)) {
                return rows;
            }
            try (CloseableIterable<Record> records =
                    IcebergGenerics.read(catalog.loadTable(id)).build()) {
                for (Record r : records) {
                    rows.add(
                            new ArrayList<>(Arrays.asList(r.get(0), r.get(1), r.get(2), r.get(3))));
                }
            }
        }
        return rows;
    }

    /** The table's rows as the reference model writes them: id, v, start, end; none: empty. */
    private static Set<List<Object>> readPaimon(Path warehouse) throws Exception {
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
