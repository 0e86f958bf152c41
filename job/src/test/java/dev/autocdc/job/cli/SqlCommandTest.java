package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code autocdc sql}: a lake target's history asked in batch SQL from the command line, as
 * docs/targets.md shows, the result printed as a table; and its refusals, each naming the line.
 */
class SqlCommandTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private String catalog() {
        return "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '"
                + dir.resolve("warehouse").toUri()
                + "');\n";
    }

    @Test
    void aLakeTargetsHistoryIsAskedInBatchSqlAndPrintedAsATable() throws Exception {
        Path events = dir.resolve("users.json");
        Files.write(
                events,
                List.of(
                        "{\"id\": 1, \"city\": \"Oaxaca\", \"seq\": 1}",
                        "{\"id\": 1, \"city\": \"Tijuana\", \"seq\": 2}",
                        "{\"id\": 2, \"city\": \"Lima\", \"seq\": 1}"));
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                catalog()
                        + """
                        CREATE DATABASE IF NOT EXISTS lake.hr;
                        CREATE TABLE users (id INT, city STRING, seq INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE lake.hr.users_history;
                        CREATE FLOW f AS AUTO CDC INTO lake.hr.users_history FROM STREAM(users)
                        KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 2;
                        """
                                .formatted(events));
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();

        Path ask = dir.resolve("ask.sql");
        Files.writeString(
                ask,
                catalog()
                        + "-- what each user's city was, in order\n"
                        + "SELECT id, city, __START_AT, __END_AT FROM lake.hr.users_history\n"
                        + "ORDER BY id, __START_AT;\n"
                        + "SELECT COUNT(*) AS open_versions FROM lake.hr.users_history"
                        + " WHERE __END_AT IS NULL;\n");
        out.reset();
        assertThat(cli("sql", "--flow", ask.toString())).as(err.toString()).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).lines().map(String::strip).toList())
                .containsSubsequence(
                        "+----+---------+------------+----------+",
                        "| id |    city | __START_AT | __END_AT |",
                        "+----+---------+------------+----------+",
                        "|  1 |  Oaxaca |          1 |        2 |",
                        "|  1 | Tijuana |          2 |   <NULL> |",
                        "|  2 |    Lima |          1 |   <NULL> |",
                        "+----+---------+------------+----------+",
                        "3 rows in set",
                        "| open_versions |",
                        "|             2 |",
                        "1 row in set");
        assertThat(out.toString(StandardCharsets.UTF_8).lines())
                .filteredOn(l -> l.endsWith(" in set"))
                .containsExactly("3 rows in set", "1 row in set");
    }

    /**
     * SET as the SQL client takes it: before the other statements it may choose the runtime mode
     * (docs/targets.md's example starts so), after them it sets any other option for the statements
     * that follow; the mode set late, or a SET of another form, stops the script naming its line.
     */
    @Test
    void setStatementsConfigureTheStatementsAfterThem() throws Exception {
        Path ask = dir.resolve("ask.sql");
        // streaming mode, set first: Flink refuses a sort on a plain column there, not in batch
        Files.writeString(
                ask,
                "SET 'execution.runtime-mode' = 'streaming';\n"
                        + "SELECT n FROM (VALUES (2), (1)) AS t(n) ORDER BY n;\n");
        assertThat(cli("sql", "--flow", ask.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains(ask + ", line 2: Flink could not run the statement")
                .contains("Sort on a non-time-attribute field is not supported");
        err.reset();
        Files.writeString(
                ask,
                "SELECT n FROM (VALUES (2), (1)) AS t(n) ORDER BY n;\n"
                        + "SET 'table.local-time-zone' = 'Asia/Tokyo';\n"
                        + "SELECT CAST(TO_TIMESTAMP_LTZ(0, 0) AS STRING) AS epoch;\n");
        assertThat(cli("sql", "--flow", ask.toString())).as(err.toString()).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("1970-01-01 09:00:00");
        Files.writeString(
                ask, "SELECT 1;\nSET 'execution.runtime-mode' = 'streaming';\nSELECT 2;\n");
        assertThat(cli("sql", "--flow", ask.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains(ask + ", line 2: SET 'execution.runtime-mode' must come before");
        err.reset();
        Files.writeString(ask, "SET 'table.local-time-zone';\nSELECT 1;\n");
        assertThat(cli("sql", "--flow", ask.toString())).isEqualTo(1);
        assertThat(err.toString()).contains(ask + ", line 1: write SET 'key' = 'value'");
    }

    @Test
    void aFlowStatementOrAStatementFlinkCannotRunStopsTheScriptNamingItsLine() throws Exception {
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                "SELECT 1;\n\nCREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id)"
                        + " SEQUENCE BY seq;\n");
        assertThat(cli("sql", "--flow", flow.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains(flow + ", line 3: an AUTO CDC statement")
                .contains("autocdc run --flow FILE.sql");
        err.reset();
        Files.writeString(flow, "SELECT 1;\nSELECT * FROM no_such_table;\n");
        assertThat(cli("sql", "--flow", flow.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains(flow + ", line 2: Flink could not run the statement:")
                .contains("no_such_table");
    }
}
