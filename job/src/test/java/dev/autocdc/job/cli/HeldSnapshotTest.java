package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot safety valve through the CLI, as a user meets it: a truncated export is held with
 * every later snapshot, and the run says so on the console and writes the held rows to the late
 * events (semantics §11: nothing held without a word).
 */
class HeldSnapshotTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private static List<String> export(int version, String name, int... ids) {
        List<String> rows = new ArrayList<>();
        for (int id : ids) {
            rows.add(
                    "{\"id\": %d, \"name\": \"%s%d\", \"v\": %d}".formatted(id, name, id, version));
        }
        return rows;
    }

    @Test
    void aTruncatedExportIsHeldAndTheRunSaysSoWithItsRowsInTheLateEvents() throws Exception {
        Path exports = Files.createDirectories(dir.resolve("exports"));
        Files.write(exports.resolve("s1.json"), export(1, "n", 1, 2, 3, 4, 5));
        Files.write(exports.resolve("s2.json"), export(2, "n", 1)); // 1 row of 5: truncated
        Files.write(exports.resolve("s3.json"), export(3, "m", 1, 2, 3, 4, 5));
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE exports (id INT, name STRING, v INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                SET 'autocdc.users.snapshot-hold-threshold' = '0.2';
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW users AS AUTO CDC INTO users_history
                FROM SNAPSHOT(exports) KEYS (id) SEQUENCE BY v STORED AS SCD TYPE 2;
                """
                        .formatted(exports));
        Path result = dir.resolve("users.jsonl");
        Path letters = dir.resolve("letters.jsonl");
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream(), true),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(
                                new String[] {
                                    "run",
                                    "--flow",
                                    flow.toString(),
                                    "--parallelism",
                                    "2",
                                    "--materialize",
                                    result.toString(),
                                    "--dead-letters",
                                    letters.toString()
                                });
        assertThat(code).as(err.toString()).isZero();
        // the first snapshot only: the held one and the one after it wait
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"id\": 1, \"name\": \"n1\", \"__START_AT\": 1, \"__END_AT\": null}",
                        "{\"id\": 2, \"name\": \"n2\", \"__START_AT\": 1, \"__END_AT\": null}",
                        "{\"id\": 3, \"name\": \"n3\", \"__START_AT\": 1, \"__END_AT\": null}",
                        "{\"id\": 4, \"name\": \"n4\", \"__START_AT\": 1, \"__END_AT\": null}",
                        "{\"id\": 5, \"name\": \"n5\", \"__START_AT\": 1, \"__END_AT\": null}");
        assertThat(err.toString())
                // the run's last progress line: its totals
                .contains(
                        "autocdc: progress: 11 events in, 5 target rows written, 0 dead letters,"
                                + " 1 late event, 1 snapshot held")
                .contains(
                        "autocdc: flow users: 0 dead letters, 1 late event (snapshot_held 1)"
                                + " written to "
                                + letters
                                + "; 1 snapshot held by the safety valve")
                .contains("raise snapshot-hold-threshold");
        List<String> held = Files.readAllLines(letters);
        assertThat(held).hasSize(1);
        assertThat(held.get(0))
                .contains("\"reason\": \"snapshot_held\"")
                .contains("\"flow\": \"users\"")
                .contains("the snapshot has 1 rows");
    }
}
