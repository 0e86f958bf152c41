package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * IGNORE NULL UPDATES through the CLI, a whole job from a JSON file to the materialized target
 * (semantics §1, §2): in an update, a null in a column the clause covers keeps the stored value; a
 * null in any other column is written; on an absent key (new, or deleted) there is nothing to keep,
 * so the null is stored. The expected tables are worked out by hand from the fold of §2.
 */
class IgnoreNullUpdatesTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /**
     * The feed, in the order the file has it. Key 1: nulls in one column, then the other, then
     * both. Key 2: a null on a new key. Key 3 and key 5: the event at 5 written before the one at
     * 2, which arrives late. Key 4: a delete, then an update with a null.
     */
    private static final String FEED =
            """
            {"id": 1, "name": "Ana", "city": "Oslo", "op": "U", "ts": 1}
            {"id": 1, "name": null, "city": "Rome", "op": "U", "ts": 2}
            {"id": 1, "name": "Bea", "city": null, "op": "U", "ts": 3}
            {"id": 1, "name": null, "city": null, "op": "U", "ts": 4}
            {"id": 2, "name": null, "city": "Lima", "op": "U", "ts": 1}
            {"id": 2, "name": "Cy", "city": null, "op": "U", "ts": 2}
            {"id": 3, "name": "Dee", "city": null, "op": "U", "ts": 5}
            {"id": 3, "name": "Old", "city": "Kyiv", "op": "U", "ts": 2}
            {"id": 4, "name": "Eve", "city": "Nice", "op": "U", "ts": 1}
            {"id": 4, "name": null, "city": null, "op": "D", "ts": 2}
            {"id": 4, "name": null, "city": "Bonn", "op": "U", "ts": 3}
            {"id": 5, "name": null, "city": "Pisa", "op": "U", "ts": 5}
            {"id": 5, "name": "Gus", "city": "Turin", "op": "U", "ts": 2}
            """;

    /** Runs the flow over {@link #FEED}; %s in {@code clauses} ends the CREATE FLOW statement. */
    private Path run(String clauses) throws Exception {
        Path feed = Files.writeString(dir.resolve("feed.json"), FEED);
        Path flow =
                Files.writeString(
                        dir.resolve("flow.sql"),
                        """
                        CREATE TABLE feed (id INT, name STRING, city STRING, op STRING, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE users;
                        CREATE FLOW users AS AUTO CDC INTO users FROM STREAM(feed) KEYS (id)
                        APPLY AS DELETE WHEN op = 'D' SEQUENCE BY ts COLUMNS * EXCEPT (op)
                        %s;
                        """
                                .formatted(feed, clauses));
        Path result = dir.resolve("users.jsonl");
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream(), true),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(
                                new String[] {
                                    "run", "--flow", flow.toString(), "--materialize", result + ""
                                });
        assertThat(code).as(err.toString()).isZero();
        assertThat(err.toString()).contains("autocdc: flow users: 0 dead letters, 0 late events");
        return result;
    }

    /**
     * IGNORE NULL UPDATES for every column, SCD type 1. Key 1: Ana/Oslo, then Rome (name kept),
     * then Bea (city kept), then all nulls (both kept, only the kept sequence column moves). Key 2:
     * null stored on the new key, then Cy with Lima kept. Key 3: folded in sequence order, Old/Kyiv
     * at 2 then Dee at 5 keeping Kyiv, which no newer event wrote (§3). Key 4: deleted at 2, so the
     * update at 3 finds nothing to keep. Key 5: Gus/Turin at 2, then Pisa at 5 keeping Gus.
     */
    @Test
    void ignoreNullUpdatesKeepsTheStoredValueInEveryColumn() throws Exception {
        Path result = run("IGNORE NULL UPDATES");
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"id\": 1, \"name\": \"Bea\", \"city\": \"Rome\", \"ts\": 4}",
                        "{\"id\": 2, \"name\": \"Cy\", \"city\": \"Lima\", \"ts\": 2}",
                        "{\"id\": 3, \"name\": \"Dee\", \"city\": \"Kyiv\", \"ts\": 5}",
                        "{\"id\": 4, \"name\": null, \"city\": \"Bonn\", \"ts\": 3}",
                        "{\"id\": 5, \"name\": \"Gus\", \"city\": \"Pisa\", \"ts\": 5}");
    }

    /**
     * IGNORE NULL UPDATES ON * EXCEPT (city), SCD type 2: a null name keeps the stored name, a null
     * city is written. Key 1: [1,2) Ana/Oslo; [2,3) Ana/Rome (name kept); [3,-) Bea with city null
     * (written), and the all-null event at 4 keeps Bea and writes a null city again, so no tracked
     * column changes and no row starts: only the untracked ts of the open row becomes 4 (§4). Key
     * 2: [1,2) null/Lima, [2,-) Cy/null. Key 3: [2,5) Old/Kyiv, [5,-) Dee/null (the late Kyiv is
     * not kept). Key 4: [1,2) Eve/Nice, the gap of the delete, [3,-) null/Bonn. Key 5: the late Gus
     * at 2 reaches the row after it, [5,-) Gus/Pisa, whose name would otherwise be null.
     */
    @Test
    void ignoreNullUpdatesExceptAColumnWritesThatColumnsNulls() throws Exception {
        Path result = run("IGNORE NULL UPDATES ON * EXCEPT (city) STORED AS SCD TYPE 2");
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"id\": 1, \"name\": \"Ana\", \"city\": \"Oslo\", \"ts\": 1,"
                                + " \"__START_AT\": 1, \"__END_AT\": 2}",
                        "{\"id\": 1, \"name\": \"Ana\", \"city\": \"Rome\", \"ts\": 2,"
                                + " \"__START_AT\": 2, \"__END_AT\": 3}",
                        "{\"id\": 1, \"name\": \"Bea\", \"city\": null, \"ts\": 4,"
                                + " \"__START_AT\": 3, \"__END_AT\": null}",
                        "{\"id\": 2, \"name\": null, \"city\": \"Lima\", \"ts\": 1,"
                                + " \"__START_AT\": 1, \"__END_AT\": 2}",
                        "{\"id\": 2, \"name\": \"Cy\", \"city\": null, \"ts\": 2,"
                                + " \"__START_AT\": 2, \"__END_AT\": null}",
                        "{\"id\": 3, \"name\": \"Old\", \"city\": \"Kyiv\", \"ts\": 2,"
                                + " \"__START_AT\": 2, \"__END_AT\": 5}",
                        "{\"id\": 3, \"name\": \"Dee\", \"city\": null, \"ts\": 5,"
                                + " \"__START_AT\": 5, \"__END_AT\": null}",
                        "{\"id\": 4, \"name\": \"Eve\", \"city\": \"Nice\", \"ts\": 1,"
                                + " \"__START_AT\": 1, \"__END_AT\": 2}",
                        "{\"id\": 4, \"name\": null, \"city\": \"Bonn\", \"ts\": 3,"
                                + " \"__START_AT\": 3, \"__END_AT\": null}",
                        "{\"id\": 5, \"name\": \"Gus\", \"city\": \"Turin\", \"ts\": 2,"
                                + " \"__START_AT\": 2, \"__END_AT\": 5}",
                        "{\"id\": 5, \"name\": \"Gus\", \"city\": \"Pisa\", \"ts\": 5,"
                                + " \"__START_AT\": 5, \"__END_AT\": null}");
    }
}
