package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Iceberg keeps rows that are written and then closed or deleted before the same commit, at
 * parallelism 2 (apache/iceberg#15305 reports equality deletes that miss rows committed at the same
 * sequence number with Flink 2.2 upserts). An SCD type 2 and an SCD type 1 flow write upsert tables
 * from one bounded input, which Iceberg commits once, at its end: each key is inserted and then
 * updated, deleted, deleted and inserted again, or updated late, within that commit, and the keys'
 * rows are written by both sink subtasks. Each table, read back with Iceberg's own reader, holds
 * exactly the rows semantics §3 and §4 give, typed by hand; its one snapshot holds position deletes
 * (rows written and removed again before the commit) and data files of both subtasks, which is the
 * case the issue is about.
 */
class IcebergSameCommitTest {
    @TempDir Path dir;

    /** Ten keys; per key, what happens to it (sequence numbers in the order written). */
    private static final List<String> EVENTS =
            List.of(
                    // 1, 10: inserted, then updated
                    event(1, "Ana", "Lima", "INSERT", 1),
                    event(1, "Ana", "Quito", "UPDATE", 2),
                    event(10, "Jo", "Cali", "INSERT", 1),
                    event(10, "Jo", "Lima", "UPDATE", 2),
                    // 2, 5, 9: inserted, then deleted
                    event(2, "Bo", "Lima", "INSERT", 1),
                    event(2, null, null, "DELETE", 3),
                    event(5, "Ed", "Lima", "INSERT", 1),
                    event(5, null, null, "DELETE", 2),
                    event(9, "Io", "Cali", "INSERT", 1),
                    event(9, null, null, "DELETE", 2),
                    // 3: inserted, updated, deleted, inserted again
                    event(3, "Cy", "Lima", "INSERT", 1),
                    event(3, "Cy", "Quito", "UPDATE", 2),
                    event(3, null, null, "DELETE", 3),
                    event(3, "Cy", "Cali", "INSERT", 4),
                    // 4: inserted, updated, then an update that arrives late between the two
                    event(4, "Di", "Lima", "INSERT", 2),
                    event(4, "Di", "Cali", "UPDATE", 6),
                    event(4, "Di", "Quito", "UPDATE", 5),
                    // 6: inserted only
                    event(6, "Fa", "Lima", "INSERT", 1),
                    // 7: inserted, updated twice, deleted
                    event(7, "Gi", "Lima", "INSERT", 1),
                    event(7, "Gi", "Cali", "UPDATE", 2),
                    event(7, "Gi", "Quito", "UPDATE", 3),
                    event(7, null, null, "DELETE", 4),
                    // 8: inserted, deleted, inserted again
                    event(8, "Ha", "Lima", "INSERT", 1),
                    event(8, null, null, "DELETE", 2),
                    event(8, "Ha", "Cali", "INSERT", 3));

    /** userId|name|city|__START_AT|__END_AT: every version, closed by the next or a delete. */
    private static final List<String> SCD2 =
            List.of(
                    "1|Ana|Lima|1|2",
                    "1|Ana|Quito|2|null",
                    "2|Bo|Lima|1|3",
                    "3|Cy|Lima|1|2",
                    "3|Cy|Quito|2|3",
                    "3|Cy|Cali|4|null",
                    "4|Di|Lima|2|5",
                    "4|Di|Quito|5|6",
                    "4|Di|Cali|6|null",
                    "5|Ed|Lima|1|2",
                    "6|Fa|Lima|1|null",
                    "7|Gi|Lima|1|2",
                    "7|Gi|Cali|2|3",
                    "7|Gi|Quito|3|4",
                    "8|Ha|Lima|1|2",
                    "8|Ha|Cali|3|null",
                    "9|Io|Cali|1|2",
                    "10|Jo|Cali|1|2",
                    "10|Jo|Lima|2|null");

    /** userId|name|city: the keys not deleted last, with their last values. */
    private static final List<String> SCD1 =
            List.of(
                    "1|Ana|Quito",
                    "3|Cy|Cali",
                    "4|Di|Cali",
                    "6|Fa|Lima",
                    "8|Ha|Cali",
                    "10|Jo|Lima");

    private static String event(int id, String name, String city, String op, int seq) {
        return "{\"userId\": %d, \"name\": %s, \"city\": %s, \"operation\": \"%s\", \"sequenceNum\": %d}"
                .formatted(
                        id,
                        name == null ? "null" : "\"" + name + "\"",
                        city == null ? "null" : "\"" + city + "\"",
                        op,
                        seq);
    }

    @Test
    void rowsWrittenAndRemovedBeforeTheSameCommitStayRemoved() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path events = dir.resolve("users.json");
        Files.write(events, EVENTS);
        LakeTargetsTest.Lake lake = LakeTargetsTest.Lake.ICEBERG;
        StringBuilder sql =
                new StringBuilder(lake.createCatalog(warehouse))
                        .append("\nCREATE DATABASE IF NOT EXISTS lake.hr;\n")
                        .append(
                                """
                                CREATE TABLE users_cdf (userId INT, name STRING, city STRING,
                                  operation STRING, sequenceNum INT)
                                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                                """
                                        .formatted(events));
        for (String type : List.of("1", "2")) {
            sql.append(
                    """
                    CREATE OR REFRESH STREAMING TABLE lake.hr.users_scd%1$s WITH (%2$s);
                    CREATE FLOW scd%1$s_flow AS AUTO CDC INTO lake.hr.users_scd%1$s
                    FROM STREAM(users_cdf) KEYS (userId)
                    APPLY AS DELETE WHEN operation = "DELETE" SEQUENCE BY sequenceNum
                    COLUMNS * EXCEPT (operation, sequenceNum) STORED AS SCD TYPE %1$s;
                    """
                            .formatted(type, lake.tableOptions));
        }
        Path flow = dir.resolve("flow.sql");
        Files.writeString(flow, sql);

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream(), true),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(new String[] {"run", "--flow", flow.toString(), "--parallelism", "2"});
        assertThat(code).as(err.toString()).isZero();

        assertThat(lake.read(warehouse, "users_scd2").rows())
                .containsExactlyInAnyOrderElementsOf(SCD2);
        assertThat(lake.read(warehouse, "users_scd1").rows())
                .containsExactlyInAnyOrderElementsOf(SCD1);

        Map<String, String> scd2 = oneCommit(warehouse, "users_scd2");
        assertThat(Long.parseLong(scd2.get("total-position-deletes")))
                .as("SCD2 rows closed before the commit: position deletes, %s", scd2)
                .isPositive();
        Map<String, String> scd1 = oneCommit(warehouse, "users_scd1");
        assertThat(Long.parseLong(scd1.get("total-position-deletes")))
                .as("SCD1 rows updated or deleted before the commit: position deletes, %s", scd1)
                .isPositive();
        System.out.println("IcebergSameCommitTest: users_scd2 " + scd2 + "; users_scd1 " + scd1);
    }

    /**
     * The summary of the table's one snapshot, after checking that it is the only one and that both
     * sink subtasks wrote data files into it (Iceberg names a Flink writer's files after its
     * subtask: {@code 00000-...}, {@code 00001-...}).
     */
    private static Map<String, String> oneCommit(Path warehouse, String table) throws Exception {
        try (HadoopCatalog catalog =
                new HadoopCatalog(
                        new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString())) {
            Table t = catalog.loadTable(TableIdentifier.of("hr", table));
            assertThat(t.snapshots()).as("snapshots of " + table).hasSize(1);
            Set<String> writers = new TreeSet<>();
            try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    String name = Path.of(task.file().location()).getFileName().toString();
                    writers.add(name.substring(0, name.indexOf('-')));
                }
            }
            assertThat(writers)
                    .as("subtasks that wrote " + table)
                    .containsExactly("00000", "00001");
            return t.currentSnapshot().summary();
        }
    }
}
