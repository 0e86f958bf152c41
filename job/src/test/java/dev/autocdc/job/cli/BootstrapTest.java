package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.job.cli.LakeTargetsTest.Lake;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code autocdc bootstrap}: a history that exists only as a table (in Paimon, written by plain
 * SQL, as a migration would leave it) becomes a savepoint of the flow's state; the flow started
 * from it with new events extends that history as if it had seen the events behind it. Every
 * expected row is typed by hand from semantics §3-4.
 */
class BootstrapTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** The users walkthrough's SCD2 table (semantics §12), as stored before the flow existed. */
    private static final String USERS_HISTORY =
            "(123, 'Isabel', 'Monterrey', 1, 5), (123, 'Isabel', 'Chihuahua', 5, 6),"
                    + " (124, 'Raul', 'Oaxaca', 1, CAST(NULL AS INT)),"
                    + " (125, 'Mercedes', 'Tijuana', 2, 5), (125, 'Mercedes', 'Mexicali', 5, 6),"
                    + " (125, 'Mercedes', 'Guadalajara', 6, CAST(NULL AS INT)),"
                    + " (126, 'Lily', 'Cancun', 2, CAST(NULL AS INT))";

    /** Events after the history: a move, a return after the delete at 6, a delete. */
    private static final List<String> LATER =
            List.of(
                    "{\"userId\": 124, \"name\": \"Raul\", \"city\": \"Puebla\", \"operation\":"
                            + " \"UPDATE\", \"sequenceNum\": 7}",
                    "{\"userId\": 123, \"name\": \"Isabel\", \"city\": \"Zacatecas\","
                            + " \"operation\": \"INSERT\", \"sequenceNum\": 8}",
                    "{\"userId\": 126, \"name\": null, \"city\": null, \"operation\": \"DELETE\","
                            + " \"sequenceNum\": 9}");

    @Test
    void anScd2HistoryGoesOnAsIfTheFlowHadSeenItsEvents() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        store(
                warehouse,
                "users",
                "__START_AT INT NOT NULL, __END_AT INT",
                "__START_AT",
                USERS_HISTORY);
        Path flow = flow(warehouse, "users", "2");
        Path savepoint = dir.resolve("savepoint");

        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "lake.hr.users",
                                "--savepoint",
                                savepoint.toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString())
                .contains("flow apply_cdc: 4 keys, 7 rows of lake.hr.users loaded")
                .contains("--from-savepoint " + savepoint + " ");
        assertThat(savepoint.resolve("_metadata")).exists();

        assertThat(cli("run", "--flow", flow.toString(), "--from-savepoint", savepoint.toString()))
                .as(err.toString())
                .isZero();
        // Oaxaca closes at 7 and Cancun at 9: only the loaded state knows those rows are open
        assertThat(Lake.PAIMON.read(warehouse, "users").rows())
                .containsExactlyInAnyOrder(
                        "123|Isabel|Monterrey|1|5",
                        "123|Isabel|Chihuahua|5|6",
                        "123|Isabel|Zacatecas|8|null",
                        "124|Raul|Oaxaca|1|7",
                        "124|Raul|Puebla|7|null",
                        "125|Mercedes|Tijuana|2|5",
                        "125|Mercedes|Mexicali|5|6",
                        "125|Mercedes|Guadalajara|6|null",
                        "126|Lily|Cancun|2|9");
    }

    /**
     * A type 1 table keeps no sequence: --as-of says when its rows are from. A later event older
     * than that changes nothing (full rows: the row as of --as-of wins), a newer one applies.
     */
    @Test
    void anScd1TableIsAsOfTheSequenceGiven() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        store(
                warehouse,
                "users",
                "",
                null,
                "(124, 'Raul', 'Oaxaca'), (125, 'Mercedes', 'Guadalajara'), (126, 'Lily',"
                        + " 'Cancun')");
        Path flow =
                flow(
                        warehouse,
                        "users",
                        "1",
                        "{\"userId\": 125, \"name\": \"Mercedes\", \"city\": \"Merida\","
                                + " \"operation\": \"UPDATE\", \"sequenceNum\": 3}");
        Path savepoint = dir.resolve("savepoint");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "apply_cdc=lake.hr.users",
                                "--as-of",
                                "6",
                                "--savepoint",
                                savepoint.toString()))
                .as(err.toString())
                .isZero();
        assertThat(cli("run", "--flow", flow.toString(), "--from-savepoint", savepoint.toString()))
                .as(err.toString())
                .isZero();
        assertThat(Lake.PAIMON.read(warehouse, "users").rows())
                .containsExactlyInAnyOrder(
                        "123|Isabel|Zacatecas", "124|Raul|Puebla", "125|Mercedes|Guadalajara");
    }

    /**
     * The employees walkthrough's bitemporal table (8 rows, semantics §12) read from a file export,
     * loaded, then Dana promoted: her believed row closes in system time and the belief splits.
     */
    @Test
    void aBitemporalHistoryFromAFileGoesOn() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        List<String> stored = LakeTargetsTest.Walkthrough.BITEMPORAL.rows;
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(Lake.PAIMON.createCatalog(warehouse).replace(";", ""));
        tables.executeSql("CREATE DATABASE IF NOT EXISTS lake.hr");
        tables.executeSql(
                "CREATE TABLE lake.hr.employees (employeeId INT NOT NULL, name STRING, role STRING,"
                        + " __START_AT DATE NOT NULL, __END_AT DATE,"
                        + " __SYSTEM_START_AT TIMESTAMP(0) NOT NULL, __SYSTEM_END_AT TIMESTAMP(0),"
                        + " PRIMARY KEY (employeeId, __START_AT, __SYSTEM_START_AT) NOT ENFORCED)"
                        + " WITH ('bucket' = '1')");
        List<String> export = new java.util.ArrayList<>();
        List<String> values = new java.util.ArrayList<>();
        for (String row : stored) {
            String[] c = row.split("\\|");
            export.add(
                    "{\"employeeId\": %s, \"name\": \"%s\", \"role\": \"%s\", \"__START_AT\": \"%s\","
                                    .formatted(c[0], c[1], c[2], c[3])
                            + " \"__END_AT\": %s, \"__SYSTEM_START_AT\": \"%s\", \"__SYSTEM_END_AT\": %s}"
                                    .formatted(quotedOrNull(c[4]), c[5], quotedOrNull(c[6])));
            values.add(
                    "(%s, '%s', '%s', DATE '%s', %s, TIMESTAMP '%s', %s)"
                            .formatted(
                                    c[0],
                                    c[1],
                                    c[2],
                                    c[3],
                                    c[4].equals("null")
                                            ? "CAST(NULL AS DATE)"
                                            : "DATE '" + c[4] + "'",
                                    c[5],
                                    c[6].equals("null")
                                            ? "CAST(NULL AS TIMESTAMP(0))"
                                            : "TIMESTAMP '" + c[6] + "'"));
        }
        tables.executeSql("INSERT INTO lake.hr.employees VALUES " + String.join(", ", values))
                .await();
        Path exported = dir.resolve("employees_export.json");
        Files.write(exported, export);
        Path events = dir.resolve("employees_later.json");
        Files.writeString(
                events,
                "{\"employeeId\": 2, \"name\": \"Dana\", \"role\": \"Lead\", \"operation\":"
                    + " \"UPDATE\", \"effectiveDate\": \"2025-05-01\", \"recordedAt\": \"2025-05-01"
                    + " 09:00:00\"}\n");
        Path flow = dir.resolve("employees.sql");
        Files.writeString(
                flow,
                Lake.PAIMON.createCatalog(warehouse)
                        + """

                        CREATE TABLE employees_export (employeeId INT, name STRING, role STRING,
                          __START_AT DATE, __END_AT DATE, __SYSTEM_START_AT TIMESTAMP(0), __SYSTEM_END_AT TIMESTAMP(0))
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE TABLE employees_cdf (employeeId INT, name STRING, role STRING, operation STRING,
                          effectiveDate DATE, recordedAt TIMESTAMP(0))
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE lake.hr.employees WITH ('bucket' = '1');
                        CREATE FLOW apply_cdc AS AUTO CDC INTO lake.hr.employees
                        FROM STREAM(employees_cdf)
                        KEYS (employeeId)
                        APPLY AS DELETE WHEN operation = "DELETE"
                        SEQUENCE BY effectiveDate
                        SYSTEM SEQUENCE BY recordedAt
                        COLUMNS * EXCEPT (operation, effectiveDate, recordedAt)
                        STORED AS BITEMPORAL;
                        """
                                .formatted(exported, events));
        Path savepoint = dir.resolve("savepoint");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "employees_export",
                                "--savepoint",
                                savepoint.toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString())
                .contains("flow apply_cdc: 2 keys, 8 rows of employees_export loaded");
        assertThat(cli("run", "--flow", flow.toString(), "--from-savepoint", savepoint.toString()))
                .as(err.toString())
                .isZero();
        List<String> expected = new java.util.ArrayList<>(stored);
        expected.remove("2|Dana|Analyst|2025-01-01|null|2025-04-01 09:00:00|null");
        expected.add("2|Dana|Analyst|2025-01-01|null|2025-04-01 09:00:00|2025-05-01 09:00:00");
        expected.add("2|Dana|Analyst|2025-01-01|2025-05-01|2025-05-01 09:00:00|null");
        expected.add("2|Dana|Lead|2025-05-01|null|2025-05-01 09:00:00|null");
        assertThat(Lake.PAIMON.read(warehouse, "employees").rows())
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private static String quotedOrNull(String v) {
        return v.equals("null") ? "null" : "\"" + v + "\"";
    }

    @Test
    void anScd1TableWithoutItsSequenceNeedsAsOf() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        store(warehouse, "users", "", null, "(124, 'Raul', 'Oaxaca')");
        Path flow = flow(warehouse, "users", "1");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "lake.hr.users",
                                "--savepoint",
                                dir.resolve("sp").toString()))
                .isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "flow apply_cdc is SCD TYPE 1 and its target does not keep its SEQUENCE"
                                + " BY column: give the sequence its rows are as of, with --as-of");
    }

    /** Overlapping versions are no SCD2 history: refused, the row named, no savepoint written. */
    @Test
    void anInvalidHistoryIsRefusedNamingTheFirstBadRow() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        store(
                warehouse,
                "users",
                "__START_AT INT NOT NULL, __END_AT INT",
                "__START_AT",
                "(124, 'Raul', 'Oaxaca', 1, 5), (124, 'Raul', 'Puebla', 3, CAST(NULL AS INT))");
        Path flow = flow(warehouse, "users", "2");
        Path savepoint = dir.resolve("savepoint");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "lake.hr.users",
                                "--savepoint",
                                savepoint.toString()))
                .isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "flow apply_cdc: not a valid history at row [124, Raul, Puebla] [3, open):"
                                + " it overlaps [124, Raul, Oaxaca] [1, 5)");
        assertThat(savepoint.resolve("_metadata")).doesNotExist();
    }

    /**
     * The bootstrap runs the file's declarations only: an INSERT (here behind a comment, which once
     * made the planner run it as a job of its own) is another job's work and writes nothing;
     * --as-of is refused for a type 2 flow.
     */
    @Test
    void onlyDeclarationsRunAndAsOfIsForType1() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        store(
                warehouse,
                "users",
                "__START_AT INT NOT NULL, __END_AT INT",
                "__START_AT",
                USERS_HISTORY);
        Path copies = dir.resolve("copies");
        Path flow = flow(warehouse, "users", "2");
        Files.writeString(
                flow,
                Files.readString(flow)
                        + "CREATE TABLE copy (userId INT) WITH ('connector' = 'filesystem',"
                        + " 'path' = '"
                        + copies
                        + "', 'format' = 'json');\n-- a copy\nINSERT INTO copy SELECT userId FROM"
                        + " users_cdf;\n");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "lake.hr.users",
                                "--savepoint",
                                dir.resolve("sp").toString()))
                .as(err.toString())
                .isZero();
        assertThat(copies).doesNotExist();
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "lake.hr.users",
                                "--as-of",
                                "6",
                                "--savepoint",
                                dir.resolve("sp2").toString()))
                .isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "--as-of is for SCD TYPE 1 flows, whose rows keep no sequence; flow"
                                + " apply_cdc is SCD2: its rows carry __START_AT");
    }

    /**
     * Two key columns (a Row key), a STRUCT sequence given by --as-of, and APPLY AS TRUNCATE WHEN
     * (whose operator also has a broadcast input): a truncate after the bootstrap reaches the
     * loaded keys, which only their state in the savepoint can make it do.
     */
    @Test
    void rowKeysStructSequencesAndTruncates() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(Lake.PAIMON.createCatalog(warehouse).replace(";", ""));
        tables.executeSql("CREATE DATABASE IF NOT EXISTS lake.hr");
        tables.executeSql(
                "CREATE TABLE lake.hr.pairs (a INT NOT NULL, b STRING NOT NULL, v STRING,"
                        + " PRIMARY KEY (a, b) NOT ENFORCED) WITH ('bucket' = '1')");
        tables.executeSql(
                        "INSERT INTO lake.hr.pairs VALUES (1, 'x', 'p'), (1, 'y', 'q'), (2, 'x',"
                                + " 'r')")
                .await();
        Path events = dir.resolve("pairs.json");
        Files.write(
                events,
                List.of(
                        "{\"a\": 2, \"b\": \"x\", \"v\": \"r2\", \"op\": \"UPSERT\", \"s1\": 6,"
                                + " \"s2\": 1}",
                        "{\"a\": null, \"b\": null, \"v\": null, \"op\": \"TRUNCATE\", \"s1\": 7,"
                                + " \"s2\": 0}",
                        "{\"a\": 1, \"b\": \"y\", \"v\": \"back\", \"op\": \"UPSERT\", \"s1\": 8,"
                                + " \"s2\": 0}",
                        "{\"a\": 3, \"b\": \"z\", \"v\": \"new\", \"op\": \"UPSERT\", \"s1\": 8,"
                                + " \"s2\": 0}"));
        Path flow = dir.resolve("pairs.sql");
        Files.writeString(
                flow,
                Lake.PAIMON.createCatalog(warehouse)
                        + """

                        CREATE TABLE pairs_cdf (a INT, b STRING, v STRING, op STRING, s1 INT, s2 INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE lake.hr.pairs WITH ('bucket' = '1');
                        CREATE FLOW pairs AS AUTO CDC INTO lake.hr.pairs FROM STREAM(pairs_cdf)
                        KEYS (a, b)
                        APPLY AS DELETE WHEN op = 'DELETE'
                        APPLY AS TRUNCATE WHEN op = 'TRUNCATE'
                        SEQUENCE BY STRUCT(s1, s2)
                        COLUMNS * EXCEPT (op, s1, s2)
                        STORED AS SCD TYPE 1;
                        """
                                .formatted(events));
        Path savepoint = dir.resolve("savepoint");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "lake.hr.pairs",
                                "--as-of",
                                "ROW(6, 0)",
                                "--savepoint",
                                savepoint.toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString()).contains("flow pairs: 3 keys, 3 rows of lake.hr.pairs loaded");
        assertThat(cli("run", "--flow", flow.toString(), "--from-savepoint", savepoint.toString()))
                .as(err.toString())
                .isZero();
        assertThat(Lake.PAIMON.read(warehouse, "pairs").rows())
                .containsExactlyInAnyOrder("1|y|back", "3|z|new");
    }

    /**
     * A deleted key with more versions than a block holds keeps state under several names (recent
     * entries, blocks, its tombstone's expiry): the savepoint's keys, counted back, are still one
     * per key.
     */
    @Test
    void aKeyWithManyVersions() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        List<String> versions = new java.util.ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            versions.add(
                    "(124, 'Raul', 'city%d', %d, %s)"
                            .formatted(i, i, i + 1)); // the last ends alone: a delete
        }
        store(
                warehouse,
                "users",
                "__START_AT INT NOT NULL, __END_AT INT",
                "__START_AT",
                String.join(", ", versions));
        Path flow = flow(warehouse, "users", "2");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "lake.hr.users",
                                "--savepoint",
                                dir.resolve("sp").toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString())
                .contains("flow apply_cdc: 1 keys, 10 rows of lake.hr.users loaded");
    }

    @Test
    void fromNamesAFlowOfTheFile() throws Exception {
        Path flow = flow(dir.resolve("warehouse"), "users", "2");
        assertThat(
                        cli(
                                "bootstrap",
                                "--flow",
                                flow.toString(),
                                "--from",
                                "other=lake.hr.users",
                                "--savepoint",
                                dir.resolve("sp").toString()))
                .isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "--from other=lake.hr.users: the file has no flow other (flows:"
                                + " apply_cdc)");
    }

    /** The table as a migration leaves it: created and filled by plain SQL. */
    private static void store(
            Path warehouse, String table, String periods, String periodKey, String values)
            throws Exception {
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(Lake.PAIMON.createCatalog(warehouse).replace(";", ""));
        tables.executeSql("CREATE DATABASE IF NOT EXISTS lake.hr");
        tables.executeSql(
                "CREATE TABLE lake.hr."
                        + table
                        + " (userId INT NOT NULL, name STRING, city STRING"
                        + (periods.isEmpty() ? "" : ", " + periods)
                        + ", PRIMARY KEY (userId"
                        + (periodKey == null ? "" : ", " + periodKey)
                        + ") NOT ENFORCED) WITH ('bucket' = '1')");
        tables.executeSql("INSERT INTO lake.hr." + table + " VALUES " + values).await();
    }

    private Path flow(Path warehouse, String table, String type, String... more) throws Exception {
        Path events = dir.resolve("later.json");
        List<String> lines = new java.util.ArrayList<>(LATER);
        lines.addAll(List.of(more));
        Files.write(events, lines);
        Path flow = dir.resolve("users.sql");
        Files.writeString(
                flow,
                Lake.PAIMON.createCatalog(warehouse)
                        + """

                        CREATE DATABASE IF NOT EXISTS lake.hr;
                        CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE lake.hr.%s WITH ('bucket' = '1');
                        CREATE FLOW apply_cdc AS AUTO CDC INTO lake.hr.%s
                        FROM STREAM(users_cdf)
                        KEYS (userId)
                        APPLY AS DELETE WHEN operation = "DELETE"
                        SEQUENCE BY sequenceNum
                        COLUMNS * EXCEPT (operation, sequenceNum)
                        STORED AS SCD TYPE %s;
                        """
                                .formatted(events, table, table, type));
        return flow;
    }

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }
}
