package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.job.flow.FlowScript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flows from snapshots (semantics §10) written in the flow language, on a bounded filesystem source
 * read as bytes and decoded by the flow: every snapshot is complete at the end of the input,
 * whatever the order of its rows and files.
 */
class SnapshotFlowJobTest {
    @TempDir Path dir;

    /**
     * semantics §13 H: the employees walkthrough as four snapshots, the rows shuffled in two files.
     */
    private static final List<String> EMPLOYEE_SNAPSHOTS =
            List.of(
                    "{\"employeeId\": 1, \"role\": \"Owner\", \"snapshotDate\": \"2025-01-01\","
                            + " \"takenAt\": \"2025-01-02 00:00:00\"}",
                    "{\"employeeId\": 2, \"role\": \"Engineer\", \"snapshotDate\": \"2025-01-01\","
                            + " \"takenAt\": \"2025-01-02 00:00:00\"}",
                    "{\"employeeId\": 1, \"role\": \"Manager\", \"snapshotDate\": \"2025-03-01\","
                            + " \"takenAt\": \"2025-03-01 00:00:00\"}",
                    "{\"employeeId\": 2, \"role\": \"Engineer\", \"snapshotDate\": \"2025-03-01\","
                            + " \"takenAt\": \"2025-03-01 00:00:00\"}",
                    "{\"employeeId\": 1, \"role\": \"Team Lead\", \"snapshotDate\": \"2025-02-01\","
                            + " \"takenAt\": \"2025-03-15 00:00:00\"}",
                    "{\"employeeId\": 2, \"role\": \"Engineer\", \"snapshotDate\": \"2025-02-01\","
                            + " \"takenAt\": \"2025-03-15 00:00:00\"}",
                    "{\"employeeId\": 1, \"role\": \"Owner\", \"snapshotDate\": \"2025-01-01\","
                            + " \"takenAt\": \"2025-04-01 00:00:00\"}",
                    "{\"employeeId\": 2, \"role\": \"Analyst\", \"snapshotDate\": \"2025-01-01\","
                            + " \"takenAt\": \"2025-04-01 00:00:00\"}");

    private List<String> run(String flow, List<String> lines, int files, long seed)
            throws Exception {
        List<String> shuffled = new ArrayList<>(lines);
        Collections.shuffle(shuffled, new Random(seed));
        Path source = Files.createDirectories(dir.resolve("snapshots-" + seed));
        for (int f = 0; f < files; f++) {
            List<String> part = new ArrayList<>();
            for (int i = f; i < shuffled.size(); i += files) {
                part.add(shuffled.get(i));
            }
            Files.write(source.resolve("part-" + f + ".json"), part);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        List<PlannedFlow> planned =
                new FlowPlanner(tEnv)
                        .plan(FlowScript.parse(flow.replace("${dir}", source.toString())));
        FlowJob job = new FlowJob(tEnv, planned);
        CloseableIterator<RowData> changelog =
                job.attach().get(planned.get(0).flow().target()).collectAsync();
        env.execute("snapshots");
        TargetTable table = new TargetTable(planned.get(0).spec());
        try (changelog) {
            changelog.forEachRemaining(table::apply);
        }
        return table.toJsonLines().lines().toList();
    }

    @Test
    void theEmployeesAsBitemporalSnapshotsGiveSpecExampleH() throws Exception {
        String flow =
                """
                CREATE TABLE employee_snapshots (employeeId INT, role STRING, snapshotDate DATE,
                                                 takenAt TIMESTAMP(0))
                WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE employees_bitemporal;
                CREATE FLOW employees AS AUTO CDC INTO employees_bitemporal
                FROM SNAPSHOT(employee_snapshots)
                KEYS (employeeId)
                SEQUENCE BY snapshotDate
                SYSTEM SEQUENCE BY takenAt
                STORED AS BITEMPORAL;
                """;
        // typed from semantics §13 H: Chris's rows equal the change-feed walkthrough's; Dana's
        // differ
        List<String> expected =
                List.of(
                        row(1, "Owner", "2025-01-01", null, "2025-01-02", "2025-03-01"),
                        row(1, "Owner", "2025-01-01", "2025-03-01", "2025-03-01", "2025-03-15"),
                        row(1, "Manager", "2025-03-01", null, "2025-03-01", null),
                        row(1, "Owner", "2025-01-01", "2025-02-01", "2025-03-15", null),
                        row(1, "Team Lead", "2025-02-01", "2025-03-01", "2025-03-15", null),
                        row(2, "Engineer", "2025-01-01", null, "2025-01-02", "2025-04-01"),
                        row(2, "Analyst", "2025-01-01", "2025-02-01", "2025-04-01", null),
                        row(2, "Engineer", "2025-02-01", null, "2025-04-01", null));
        for (long seed = 1; seed <= 3; seed++) {
            assertThat(run(flow, EMPLOYEE_SNAPSHOTS, 2, seed))
                    .as("seed " + seed)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private static String row(
            int id, String role, String start, String end, String sysStart, String sysEnd) {
        return "{\"employeeId\": "
                + id
                + ", \"role\": \""
                + role
                + "\", \"__START_AT\": \""
                + start
                + "\", \"__END_AT\": "
                + (end == null ? "null" : "\"" + end + "\"")
                + ", \"__SYSTEM_START_AT\": \""
                + sysStart
                + " 00:00:00\", \"__SYSTEM_END_AT\": "
                + (sysEnd == null ? "null" : "\"" + sysEnd + " 00:00:00\"")
                + "}";
    }

    @Test
    void nightlyExportsInADirectoryGiveTheScd2Diff() throws Exception {
        // three nightly exports of a users table: 3 changes its city on night 2, 2 leaves on
        // night 2 and comes back on night 3, 4 arrives on night 3; night 3 repeats a row
        String flow =
                """
                CREATE TABLE user_exports (userId INT, city STRING, exportDay INT)
                WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW users AS AUTO CDC INTO users_history
                FROM SNAPSHOT(user_exports)
                KEYS (userId)
                SEQUENCE BY exportDay
                STORED AS SCD TYPE 2;
                """;
        List<String> exports =
                List.of(
                        "{\"userId\": 1, \"city\": \"Oaxaca\", \"exportDay\": 1}",
                        "{\"userId\": 2, \"city\": \"Tijuana\", \"exportDay\": 1}",
                        "{\"userId\": 3, \"city\": \"Cancun\", \"exportDay\": 1}",
                        "{\"userId\": 1, \"city\": \"Oaxaca\", \"exportDay\": 2}",
                        "{\"userId\": 3, \"city\": \"Merida\", \"exportDay\": 2}",
                        "{\"userId\": 1, \"city\": \"Oaxaca\", \"exportDay\": 3}",
                        "{\"userId\": 2, \"city\": \"Tijuana\", \"exportDay\": 3}",
                        "{\"userId\": 3, \"city\": \"Merida\", \"exportDay\": 3}",
                        "{\"userId\": 3, \"city\": \"Merida\", \"exportDay\": 3}",
                        "{\"userId\": 4, \"city\": \"Puebla\", \"exportDay\": 3}");
        List<String> expected =
                List.of(
                        "{\"userId\": 1, \"city\": \"Oaxaca\", \"__START_AT\": 1, \"__END_AT\":"
                                + " null}",
                        "{\"userId\": 2, \"city\": \"Tijuana\", \"__START_AT\": 1, \"__END_AT\":"
                                + " 2}",
                        "{\"userId\": 2, \"city\": \"Tijuana\", \"__START_AT\": 3, \"__END_AT\":"
                                + " null}",
                        "{\"userId\": 3, \"city\": \"Cancun\", \"__START_AT\": 1, \"__END_AT\":"
                                + " 2}",
                        "{\"userId\": 3, \"city\": \"Merida\", \"__START_AT\": 2, \"__END_AT\":"
                                + " null}",
                        "{\"userId\": 4, \"city\": \"Puebla\", \"__START_AT\": 3, \"__END_AT\":"
                                + " null}");
        for (long seed = 1; seed <= 2; seed++) {
            assertThat(run(flow, exports, 3, seed))
                    .as("seed " + seed)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /**
     * Bad lines in an export change nothing: a row without a key at a new version makes no snapshot
     * (else it would delete every key), an unreadable line and a blank one are dead letters.
     */
    @Test
    void rowsThatChangeNothingMakeNoSnapshot() throws Exception {
        String flow =
                """
                CREATE TABLE user_exports (userId INT, city STRING, exportDay INT)
                WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW users AS AUTO CDC INTO users_history
                FROM SNAPSHOT(user_exports)
                KEYS (userId)
                SEQUENCE BY exportDay
                STORED AS SCD TYPE 2;
                """;
        List<String> lines =
                List.of(
                        "{\"userId\": 1, \"city\": \"Oaxaca\", \"exportDay\": 1}",
                        "{\"userId\": 2, \"city\": \"Tijuana\", \"exportDay\": 1}",
                        "{\"userId\": null, \"city\": \"Nowhere\", \"exportDay\": 2}",
                        "{\"userId\": 3, \"city\": broken",
                        "   ");
        assertThat(run(flow, lines, 2, 7))
                .containsExactlyInAnyOrder(
                        "{\"userId\": 1, \"city\": \"Oaxaca\", \"__START_AT\": 1, \"__END_AT\":"
                                + " null}",
                        "{\"userId\": 2, \"city\": \"Tijuana\", \"__START_AT\": 1,"
                                + " \"__END_AT\": null}");
    }

    /**
     * A directory watched for new files ({@code source.monitor-interval}), one file per nightly
     * export, each ended by an end row: every export is applied as soon as its file is read,
     * without waiting for the next night's.
     */
    @Test
    void aWatchedDirectoryAppliesEachNightlyFileAsItArrives() throws Exception {
        watchedNights(1);
    }

    /**
     * As above at parallelism 2: Flink's filesystem source keeps a watermark per reading subtask,
     * and a subtask that was handed no file must not hold a night's export back until the next
     * night's file arrives.
     */
    @Test
    void aWatchedDirectoryAtParallelismTwoAppliesANightOnItsEndRow() throws Exception {
        watchedNights(2);
    }

    /**
     * Runs a flow over a watched directory at this parallelism, drops two nightly files one after
     * the other and waits for each to be applied before the next is written.
     */
    private void watchedNights(int parallelism) throws Exception {
        Path exports = Files.createDirectories(dir.resolve("watched"));
        String flow =
                """
                CREATE TABLE user_exports (userId INT, city STRING, exportDay INT, kind STRING)
                WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json',
                      'source.monitor-interval' = '200ms');
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW users AS AUTO CDC INTO users_history
                FROM SNAPSHOT(user_exports)
                KEYS (userId)
                SEQUENCE BY exportDay
                APPLY AS SNAPSHOT END WHEN kind = 'END'
                COLUMNS * EXCEPT (kind)
                STORED AS SCD TYPE 2;
                """
                        .replace("${dir}", exports.toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        List<PlannedFlow> planned = new FlowPlanner(tEnv).plan(FlowScript.parse(flow));
        CloseableIterator<RowData> changelog =
                new FlowJob(tEnv, planned).attach().get("users_history").collectAsync();
        TargetTable table = new TargetTable(planned.get(0).spec());
        var job = env.executeAsync("watched exports");
        Thread reader =
                new Thread(
                        () -> {
                            try (changelog) {
                                while (changelog.hasNext()) {
                                    RowData r = changelog.next();
                                    synchronized (table) {
                                        table.apply(r);
                                    }
                                }
                            } catch (Exception e) {
                                // the job was cancelled at the end of the test
                            }
                        });
        reader.setDaemon(true);
        reader.start();
        try {
            nightly(exports, 1, List.of("1 Oaxaca", "2 Tijuana"));
            awaitRows(
                    table,
                    List.of(
                            "{\"userId\": 1, \"city\": \"Oaxaca\", \"__START_AT\": 1,"
                                    + " \"__END_AT\": null}",
                            "{\"userId\": 2, \"city\": \"Tijuana\", \"__START_AT\": 1,"
                                    + " \"__END_AT\": null}"));
            nightly(exports, 2, List.of("1 Merida"));
            awaitRows(
                    table,
                    List.of(
                            "{\"userId\": 1, \"city\": \"Oaxaca\", \"__START_AT\": 1,"
                                    + " \"__END_AT\": 2}",
                            "{\"userId\": 1, \"city\": \"Merida\", \"__START_AT\": 2,"
                                    + " \"__END_AT\": null}",
                            "{\"userId\": 2, \"city\": \"Tijuana\", \"__START_AT\": 1,"
                                    + " \"__END_AT\": 2}"));
        } finally {
            job.cancel().get();
        }
    }

    /** Writes one night's export, its end row last, as a new file (renamed in, complete). */
    private static void nightly(Path dir, int day, List<String> users) throws Exception {
        List<String> lines = new ArrayList<>();
        for (String u : users) {
            String[] idCity = u.split(" ");
            lines.add(
                    "{\"userId\": %s, \"city\": \"%s\", \"exportDay\": %d}"
                            .formatted(idCity[0], idCity[1], day));
        }
        lines.add("{\"kind\": \"END\", \"exportDay\": %d}".formatted(day));
        Path hidden = dir.resolve(".export-" + day + ".json");
        Files.write(hidden, lines);
        Files.move(hidden, dir.resolve("export-" + day + ".json"));
    }

    private static void awaitRows(TargetTable table, List<String> expected) throws Exception {
        List<String> sorted = expected.stream().sorted().toList();
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(1).toNanos();
        List<String> rows;
        do {
            Thread.sleep(100);
            synchronized (table) {
                rows = table.toJsonLines().lines().sorted().toList();
            }
        } while (!rows.equals(sorted) && System.nanoTime() < deadline);
        assertThat(rows).isEqualTo(sorted);
    }
}
