package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Late events through the CLI, as a user meets them (semantics §7, docs/bad-input.md): an event
 * older than the history its key still holds is not applied but routed, with its reason and the
 * whole record, to the flow's late-events table, or else to the {@code --dead-letters} file, and
 * the run's summary counts it there.
 *
 * <p>A retention counts processing time, so the feed must take time: a {@code datagen} source
 * emitting a row a second. Key 1 is inserted at sequence 1 and deleted at 5 a second later; its
 * tombstone lives 10 ms, so the SCD type 2 key keeps only its floor (5). A second later an upsert
 * at 3 comes, before that floor: a late event ({@code BEFORE_RETAINED_HISTORY}), while an upsert at
 * 7 starts a new history.
 */
class LateEventsTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /**
     * The feed: row n of 4 is key 1's event, as the class comment says. The first %s is the
     * late-events table's directory, the second the SET that routes the late events there, or none.
     */
    private static final String FLOW =
            """
            CREATE TABLE feed (n INT,
              id AS 1,
              name AS CASE n WHEN 1 THEN 'Ana' WHEN 3 THEN 'late' WHEN 4 THEN 'back' END,
              op AS CASE n WHEN 2 THEN 'D' ELSE 'U' END,
              ts AS CASE n WHEN 1 THEN 1 WHEN 2 THEN 5 WHEN 3 THEN 3 ELSE 7 END)
            WITH ('connector' = 'datagen', 'rows-per-second' = '1', 'fields.n.kind' = 'sequence',
                  'fields.n.start' = '1', 'fields.n.end' = '4', 'number-of-rows' = '4');
            CREATE TABLE late_events (flow STRING, source STRING, reason STRING, message STRING,
              payload STRING, topic STRING, `partition` INT, `offset` BIGINT, raw_record BYTES)
            WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
            SET 'autocdc.users.tombstone-retention' = '10 ms';
            %s
            CREATE OR REFRESH STREAMING TABLE users_history;
            CREATE FLOW users AS AUTO CDC INTO users_history FROM STREAM(feed) KEYS (id)
            APPLY AS DELETE WHEN op = 'D' SEQUENCE BY ts COLUMNS * EXCEPT (n, op)
            STORED AS SCD TYPE 2;
            """;

    /** The history the sink holds: the version deleted at 5, and the new one from 7. */
    private static final List<String> HISTORY =
            List.of(
                    "{\"id\": 1, \"name\": \"Ana\", \"ts\": 1, \"__START_AT\": 1, \"__END_AT\": 5}",
                    "{\"id\": 1, \"name\": \"back\", \"ts\": 7, \"__START_AT\": 7,"
                            + " \"__END_AT\": null}");

    private static final String MESSAGE =
            "the event's sequence is at or before the oldest sequence the key still holds; the"
                    + " history it would change left state (history retention, or the key's"
                    + " tombstone expired)";

    /**
     * The late event's record as JSON: every source column, the computed ones included, the
     * target's first and then those COLUMNS leaves out.
     */
    private static final String PAYLOAD =
            "{\"id\": 1, \"name\": \"late\", \"ts\": 3, \"n\": 3, \"op\": \"U\"}";

    private int run(Path flow, String... more) {
        List<String> args = new ArrayList<>(List.of("run", "--flow", flow.toString()));
        args.addAll(List.of("--parallelism", "1", "--materialize"));
        args.add(dir.resolve("users.jsonl").toString());
        args.addAll(List.of(more));
        return new AutoCdcCli(
                        new PrintStream(new ByteArrayOutputStream(), true),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args.toArray(new String[0]));
    }

    private Path flow(String lateEventsSetting) throws IOException {
        Path table = Files.createDirectories(dir.resolve("late_events"));
        return Files.writeString(
                dir.resolve("flow.sql"), FLOW.formatted(table.toUri(), lateEventsSetting));
    }

    /** Late events reach the table the flow names, and the run says they went there. */
    @Test
    void aLateEventReachesTheDeclaredLateEventsTable() throws Exception {
        Path flow = flow("SET 'autocdc.users.late-events-table' = 'late_events';");
        Path letters = dir.resolve("letters.jsonl");
        // the file takes only what has no table: here nothing
        assertThat(run(flow, "--dead-letters", letters.toString())).as(err.toString()).isZero();
        assertThat(Files.readAllLines(dir.resolve("users.jsonl"))).isEqualTo(HISTORY);
        assertThat(err.toString())
                .contains(
                        "autocdc: flow users: 0 dead letters, 1 late event"
                                + " (BEFORE_RETAINED_HISTORY 1) written to table late_events\n");
        assertThat(Files.readAllLines(letters)).isEmpty();
        List<JsonNode> rows = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir.resolve("late_events"))) {
            for (Path f : files.filter(p -> !p.getFileName().toString().startsWith(".")).toList()) {
                for (String line : Files.readAllLines(f)) {
                    rows.add(new ObjectMapper().readTree(line));
                }
            }
        }
        assertThat(rows).hasSize(1);
        JsonNode row = rows.get(0);
        assertThat(row.path("flow").asText()).isEqualTo("users");
        assertThat(row.path("source").asText()).isEqualTo("feed");
        assertThat(row.path("reason").asText()).isEqualTo("BEFORE_RETAINED_HISTORY");
        assertThat(row.path("message").asText()).isEqualTo(MESSAGE);
        assertThat(row.path("payload").asText()).isEqualTo(PAYLOAD);
        assertThat(row.path("topic").isNull()).isTrue();
        assertThat(row.path("raw_record").isNull())
                .as("a source read as declared has no bytes")
                .isTrue();
    }

    /** Without a table, the late events go to the --dead-letters file, each line a whole letter. */
    @Test
    void withoutATableALateEventGoesToTheDeadLetterFile() throws Exception {
        Path flow = flow("");
        Path letters = dir.resolve("letters.jsonl");
        assertThat(run(flow, "--dead-letters", letters.toString())).as(err.toString()).isZero();
        assertThat(Files.readAllLines(dir.resolve("users.jsonl"))).isEqualTo(HISTORY);
        assertThat(err.toString())
                .contains(
                        "autocdc: flow users: 0 dead letters, 1 late event"
                                + " (BEFORE_RETAINED_HISTORY 1) written to "
                                + letters
                                + "\n");
        List<String> written = Files.readAllLines(letters);
        assertThat(written).hasSize(1);
        JsonNode letter = new ObjectMapper().readTree(written.get(0));
        assertThat(letter.path("flow").asText()).isEqualTo("users");
        assertThat(letter.path("source").asText()).isEqualTo("feed");
        assertThat(letter.path("reason").asText()).isEqualTo("BEFORE_RETAINED_HISTORY");
        assertThat(letter.path("message").asText()).isEqualTo(MESSAGE);
        assertThat(letter.path("payload").asText()).isEqualTo(PAYLOAD);
        assertThat(letter.path("raw").isNull()).isTrue();
    }
}
