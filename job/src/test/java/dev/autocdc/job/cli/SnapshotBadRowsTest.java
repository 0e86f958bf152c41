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
 * Bad rows in a nightly export, through the CLI: a row whose key and snapshot can be read holds its
 * key at that snapshot, whatever is wrong with its other values, so one bad row does not rewrite
 * the key's history; a row whose key cannot be read exactly places nothing (docs/snapshots.md).
 */
class SnapshotBadRowsTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private List<String> run(Path letters, List<String> s1, List<String> s2, List<String> s3)
            throws Exception {
        Path exports = Files.createDirectories(dir.resolve("exports"));
        Files.write(exports.resolve("s1.json"), s1);
        Files.write(exports.resolve("s2.json"), s2);
        Files.write(exports.resolve("s3.json"), s3);
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE exports (id INT, qty INT, v INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE inv;
                CREATE FLOW f AS AUTO CDC INTO inv FROM SNAPSHOT(exports) KEYS (id)
                SEQUENCE BY v STORED AS SCD TYPE 2;
                """
                        .formatted(exports));
        Path result = dir.resolve("inv.jsonl");
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream(), true),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(
                                new String[] {
                                    "run",
                                    "--flow",
                                    flow.toString(),
                                    "--materialize",
                                    result.toString(),
                                    "--dead-letters",
                                    letters.toString()
                                });
        assertThat(code).as(err.toString()).isZero();
        return Files.readAllLines(result);
    }

    private static String row(Object id, Object qty, int v) {
        return "{\"id\": %s, \"qty\": %s, \"v\": %d}".formatted(id, qty, v);
    }

    @Test
    void aRowWithAValueItsColumnCannotHoldHoldsItsKeyAtItsSnapshot() throws Exception {
        Path letters = dir.resolve("letters.jsonl");
        List<String> table =
                run(
                        letters,
                        List.of(row(1, 10, 1), row(2, 20, 1), row(3, 30, 1)),
                        // out of INT's range (the format refuses it) and a fraction (it coerces)
                        List.of(
                                row(1, 3000000000L, 2),
                                row(2, 21, 2),
                                row(3, 22.7, 2),
                                row(null, 40, 2)),
                        List.of(row(1, 10, 3), row(2, 21, 3), row(3, 30, 3)));
        // keys 1 and 3 stay as they were at snapshot 2: no close, no reopening
        assertThat(table)
                .containsExactly(
                        "{\"id\": 1, \"qty\": 10, \"__START_AT\": 1, \"__END_AT\": null}",
                        "{\"id\": 2, \"qty\": 20, \"__START_AT\": 1, \"__END_AT\": 2}",
                        "{\"id\": 2, \"qty\": 21, \"__START_AT\": 2, \"__END_AT\": null}",
                        "{\"id\": 3, \"qty\": 30, \"__START_AT\": 1, \"__END_AT\": null}");
        List<String> written = Files.readAllLines(letters);
        assertThat(written).hasSize(3);
        // each with the record's bytes: checked before the keyed exchange, where they are at hand
        assertThat(written)
                .allSatisfy(
                        l ->
                                assertThat(l)
                                        .contains("\"source\": \"exports\"")
                                        .doesNotContain("\"raw\": null"))
                .anySatisfy(l -> assertThat(l).contains("cannot hold 3000000000 exactly"))
                .anySatisfy(l -> assertThat(l).contains("cannot hold 22.7 exactly"))
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains("\"reason\": \"NULL_KEY\"")
                                        .contains(
                                                "\"raw\": \""
                                                        + java.util.Base64.getEncoder()
                                                                .encodeToString(
                                                                        row(null, 40, 2)
                                                                                .getBytes(
                                                                                        StandardCharsets
                                                                                                .UTF_8))));
        assertThat(err.toString())
                .contains("flow f: 3 dead letters (INEXACT_NUMBER 2, NULL_KEY 1)");
    }

    @Test
    void aRowWhoseKeyItsColumnCannotHoldPlacesNothing() throws Exception {
        Path letters = dir.resolve("letters.jsonl");
        List<String> table =
                run(
                        letters,
                        List.of(row(1, 10, 1), row(2, 20, 1)),
                        List.of(row(3000000001L, 10, 2), row(2, 20, 2)),
                        List.of(row(2, 20, 3)));
        // the bad row says nothing about key 1: it is deleted at snapshot 2
        assertThat(table)
                .containsExactly(
                        "{\"id\": 1, \"qty\": 10, \"__START_AT\": 1, \"__END_AT\": 2}",
                        "{\"id\": 2, \"qty\": 20, \"__START_AT\": 1, \"__END_AT\": null}");
        assertThat(Files.readAllLines(letters))
                .singleElement()
                .satisfies(
                        l ->
                                assertThat(l)
                                        .contains("\"reason\": \"INEXACT_NUMBER\"")
                                        .contains("column id (INT) cannot hold 3000000001"));
    }
}
