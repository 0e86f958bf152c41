package dev.autocdc.job.snapshots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.embedded.postgres.PostgresServer;
import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Snapshots from a table of a real PostgreSQL server ({@code 'connector' = 'jdbc-snapshots'}), read
 * whole at an interval while the flow runs, with rows changed, deleted and added between reads:
 * versioned by the read's time (a snapshot at each read) and by a column of the table (a snapshot
 * only when the column's greatest value moves on).
 */
class JdbcSnapshotsTest {
    private static PostgresServer postgres;

    @BeforeAll
    static void start() throws Exception {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    private static void sql(String... statements) throws Exception {
        try (Connection c = postgres.connect();
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static PlannedFlow plan(StreamTableEnvironment tEnv, String script) {
        List<PlannedFlow> flows = new FlowPlanner(tEnv).plan(FlowScript.parse(script));
        return flows.get(0);
    }

    /** A history row without its times, which are the reads': its values and whether current. */
    private static String withoutTimes(String row) {
        return row.replaceAll(", \"__START_AT\": [^,]*, \"__END_AT\": null\\}", " current}")
                .replaceAll(", \"__START_AT\": [^,]*, \"__END_AT\": [^}]*\\}", " closed}");
    }

    @Test
    void eachReadIsASnapshotAtItsTime() throws Exception {
        sql(
                "CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, city TEXT)",
                "INSERT INTO customers VALUES (1, 'Ana', 'Lima'), (2, 'Ben', 'Oslo'),"
                        + " (3, 'Chloe', 'Riga')");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        PlannedFlow flow =
                plan(
                        tEnv,
                        """
                        CREATE TABLE customer_reads (id INT, name STRING, city STRING,
                          read_at TIMESTAMP_LTZ(3) METADATA FROM 'read-time' VIRTUAL,
                          WATERMARK FOR read_at AS SOURCE_WATERMARK())
                        WITH ('connector' = 'jdbc-snapshots', 'url' = '%s', 'table-name' = 'customers',
                              'username' = 'postgres', 'interval' = '200 ms');
                        CREATE OR REFRESH STREAMING TABLE customers_history;
                        CREATE FLOW customers AS AUTO CDC INTO customers_history
                        FROM SNAPSHOT(customer_reads) KEYS (id) SEQUENCE BY read_at
                        STORED AS SCD TYPE 2;
                        """
                                .formatted(postgres.url()));
        try (RunningTarget target = new RunningTarget(env, tEnv, flow)) {
            target.await(
                    JdbcSnapshotsTest::withoutTimes,
                    "{\"id\": 1, \"name\": \"Ana\", \"city\": \"Lima\" current}",
                    "{\"id\": 2, \"name\": \"Ben\", \"city\": \"Oslo\" current}",
                    "{\"id\": 3, \"name\": \"Chloe\", \"city\": \"Riga\" current}");
            sql(
                    "UPDATE customers SET city = 'Bergen' WHERE id = 2",
                    "DELETE FROM customers WHERE id = 3",
                    "INSERT INTO customers VALUES (4, 'Dan', 'Pisa')");
            target.await(
                    JdbcSnapshotsTest::withoutTimes,
                    "{\"id\": 1, \"name\": \"Ana\", \"city\": \"Lima\" current}",
                    "{\"id\": 2, \"name\": \"Ben\", \"city\": \"Oslo\" closed}",
                    "{\"id\": 2, \"name\": \"Ben\", \"city\": \"Bergen\" current}",
                    "{\"id\": 3, \"name\": \"Chloe\", \"city\": \"Riga\" closed}",
                    "{\"id\": 4, \"name\": \"Dan\", \"city\": \"Pisa\" current}");
        }
    }

    @Test
    void aVersionColumnMakesASnapshotOnlyWhenItMovesOn() throws Exception {
        sql(
                "CREATE TABLE exports (id INT PRIMARY KEY, city TEXT, export_day INT)",
                "INSERT INTO exports VALUES (1, 'Lima', 1), (2, 'Oslo', 1), (3, 'Riga', 1)");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        PlannedFlow flow =
                plan(
                        tEnv,
                        """
                        CREATE TABLE export_reads (id INT, city STRING, export_day INT,
                          read_at TIMESTAMP_LTZ(3) METADATA FROM 'read-time' VIRTUAL,
                          WATERMARK FOR read_at AS SOURCE_WATERMARK())
                        WITH ('connector' = 'jdbc-snapshots', 'url' = '%s', 'table-name' = 'exports',
                              'username' = 'postgres', 'interval' = '200 ms',
                              'version-column' = 'export_day');
                        CREATE OR REFRESH STREAMING TABLE export_history;
                        CREATE FLOW exports AS AUTO CDC INTO export_history
                        FROM SNAPSHOT(export_reads) KEYS (id) SEQUENCE BY export_day
                        STORED AS SCD TYPE 2;
                        """
                                .formatted(postgres.url()));
        try (RunningTarget target = new RunningTarget(env, tEnv, flow)) {
            target.await(
                    row -> row,
                    "{\"id\": 1, \"city\": \"Lima\", \"__START_AT\": 1, \"__END_AT\": null}",
                    "{\"id\": 2, \"city\": \"Oslo\", \"__START_AT\": 1, \"__END_AT\": null}",
                    "{\"id\": 3, \"city\": \"Riga\", \"__START_AT\": 1, \"__END_AT\": null}");
            // the next export, written in one transaction: a read sees day 1 or day 2 whole
            sql(
                    "BEGIN",
                    "DELETE FROM exports",
                    "INSERT INTO exports VALUES (1, 'Lima', 2), (2, 'Bergen', 2), (4, 'Pisa', 2)",
                    "COMMIT");
            target.await(
                    row -> row,
                    "{\"id\": 1, \"city\": \"Lima\", \"__START_AT\": 1, \"__END_AT\": null}",
                    "{\"id\": 2, \"city\": \"Oslo\", \"__START_AT\": 1, \"__END_AT\": 2}",
                    "{\"id\": 2, \"city\": \"Bergen\", \"__START_AT\": 2, \"__END_AT\": null}",
                    "{\"id\": 3, \"city\": \"Riga\", \"__START_AT\": 1, \"__END_AT\": 2}",
                    "{\"id\": 4, \"city\": \"Pisa\", \"__START_AT\": 2, \"__END_AT\": null}");
        }
    }

    /**
     * A table that keeps every export: each read sends the rows of the versions after the latest
     * snapshot alone, each timed by its version; nothing when no version moved on.
     */
    @Test
    void aTableKeepingEveryVersionSendsEachVersionOnce() throws Exception {
        sql(
                "CREATE TABLE all_exports (id INT, city TEXT, export_day INT,"
                        + " PRIMARY KEY (id, export_day))",
                "INSERT INTO all_exports VALUES (1, 'Lima', 1), (2, 'Oslo', 1)");
        RowType columns =
                RowType.of(
                        new LogicalType[] {new IntType(), VarCharType.STRING_TYPE, new IntType()},
                        new String[] {"id", "city", "export_day"});
        JdbcTableReader reader =
                new JdbcTableReader(
                        postgres.url(), "all_exports", "postgres", "", columns, false, 2);
        reader.open(getClass().getClassLoader());
        List<String> sent = new ArrayList<>();
        SnapshotReader.Rows<RowData> rows =
                (row, time) -> sent.add(row.getInt(0) + "@" + row.getInt(2) + "/" + time);
        SnapshotReader.Emitted first = reader.next(null, rows);
        assertThat(first.time()).isEqualTo(1);
        assertThat(sent).containsExactlyInAnyOrder("1@1/1", "2@1/1");
        sent.clear();
        assertThat(reader.next(first.version(), rows)).isNull(); // no version moved on
        sql("INSERT INTO all_exports VALUES (1, 'Lima', 2), (3, 'Riga', 2)");
        SnapshotReader.Emitted second = reader.next(first.version(), rows);
        assertThat(second.time()).isEqualTo(2);
        assertThat(sent).containsExactlyInAnyOrder("1@2/2", "3@2/2");
    }

    @Test
    void aTableWithoutTheSourcesWatermarkIsRefusedNamingIt() {
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        assertThatThrownBy(
                        () ->
                                plan(
                                        tEnv,
                                        """
                                        CREATE TABLE exported (id INT, city STRING,
                                          read_at TIMESTAMP_LTZ(3) METADATA FROM 'read-time' VIRTUAL)
                                        WITH ('connector' = 'jdbc-snapshots', 'url' = 'jdbc:postgresql://x/y',
                                              'table-name' = 't');
                                        CREATE OR REFRESH STREAMING TABLE h;
                                        CREATE FLOW f AS AUTO CDC INTO h FROM SNAPSHOT(exported)
                                        KEYS (id) SEQUENCE BY read_at STORED AS SCD TYPE 2;
                                        """))
                .hasMessageContaining("FROM SNAPSHOT")
                .hasMessageContaining("AS SOURCE_WATERMARK()");
    }

    @Test
    void aVersionColumnThatIsNotATimeIsRefused() {
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        tEnv.executeSql(
                "CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'jdbc-snapshots', 'url' ="
                        + " 'jdbc:postgresql://x/y', 'table-name' = 't', 'version-column' = 'v')");
        assertThatThrownBy(() -> tEnv.sqlQuery("SELECT * FROM t").execute())
                .rootCause()
                .hasMessageContaining("'version-column' = 'v' is STRING")
                .hasMessageContaining("an integer (TINYINT to BIGINT), DATE or TIMESTAMP");
    }
}
