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
 * A capture format's change time read from files, as docs/flows.md recommends it for Kafka: the
 * metadata column {@code value.source.timestamp} (or {@code source.timestamp}) of a filesystem
 * table, which Flink's filesystem connector does not offer, is read by the flow's decoding step; an
 * unknown key is refused with every key the source has.
 */
class FileCaptureFormatsTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(new ByteArrayOutputStream(), true),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private Path flow(String format, String key) throws Exception {
        Path changes = dir.resolve("changes.json");
        Files.write(
                changes,
                List.of(
                        // out of order in the file: the change time decides
                        "{\"before\": {\"id\": 1, \"name\": \"a\"}, \"after\": {\"id\": 1,"
                                + " \"name\": \"b\"}, \"source\": {\"ts_ms\": 2000}, \"op\": \"u\","
                                + " \"ts_ms\": 2500}",
                        "{\"before\": null, \"after\": {\"id\": 1, \"name\": \"a\"}, \"source\":"
                                + " {\"ts_ms\": 1000}, \"op\": \"c\", \"ts_ms\": 1500}",
                        "{\"before\": {\"id\": 1, \"name\": \"b\"}, \"after\": null, \"source\":"
                                + " {\"ts_ms\": 3000}, \"op\": \"d\", \"ts_ms\": 3500}"));
        Path flow = dir.resolve("flow.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdc (id INT, name STRING,
                  changed_at TIMESTAMP_LTZ(3) METADATA FROM '%s' VIRTUAL)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = '%s');
                CREATE OR REFRESH STREAMING TABLE users_history;
                CREATE FLOW users AS AUTO CDC INTO users_history FROM STREAM(users_cdc)
                KEYS (id) SEQUENCE BY changed_at COLUMNS * EXCEPT (changed_at)
                STORED AS SCD TYPE 2;
                """
                        .formatted(key, changes, format));
        return flow;
    }

    @Test
    void theChangeTimeOfADebeziumFileSequencesTheHistory() throws Exception {
        for (String key : List.of("value.source.timestamp", "source.timestamp")) {
            Path result = dir.resolve("history.jsonl");
            assertThat(
                            cli(
                                    "run",
                                    "--flow",
                                    flow("debezium-json", key).toString(),
                                    "--materialize",
                                    result.toString()))
                    .as(err.toString())
                    .isZero();
            assertThat(Files.readAllLines(result))
                    .as(key)
                    .containsExactly(
                            "{\"id\": 1, \"name\": \"a\", \"__START_AT\": \"1970-01-01 00:00:01Z\","
                                    + " \"__END_AT\": \"1970-01-01 00:00:02Z\"}",
                            "{\"id\": 1, \"name\": \"b\", \"__START_AT\": \"1970-01-01 00:00:02Z\","
                                    + " \"__END_AT\": \"1970-01-01 00:00:03Z\"}");
        }
    }

    /**
     * PostgreSQL's default replica identity gives an update's change no {@code before}: {@code
     * debezium-json} refuses it, and the refusal is a dead letter that says what to change.
     */
    @Test
    void anUpdateWithoutItsBeforeImageIsADeadLetterNamingTheReplicaIdentity() throws Exception {
        Path flow = flow("debezium-json", "value.source.timestamp");
        Path changes = dir.resolve("changes.json");
        Files.write(
                changes,
                List.of(
                        "{\"before\": null, \"after\": {\"id\": 1, \"name\": \"a\"}, \"source\":"
                                + " {\"ts_ms\": 1000}, \"op\": \"c\"}",
                        "{\"before\": null, \"after\": {\"id\": 1, \"name\": \"b\"}, \"source\":"
                                + " {\"ts_ms\": 2000}, \"op\": \"u\"}"));
        Path result = dir.resolve("history.jsonl");
        Path letters = dir.resolve("letters.jsonl");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                result.toString(),
                                "--dead-letters",
                                letters.toString()))
                .as(err.toString())
                .isZero();
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"id\": 1, \"name\": \"a\", \"__START_AT\": \"1970-01-01 00:00:01Z\","
                                + " \"__END_AT\": null}");
        assertThat(Files.readAllLines(letters))
                .singleElement()
                .asString()
                .contains("\"reason\": \"PARSE_ERROR\"", "REPLICA IDENTITY to FULL");
    }

    @Test
    void anUnknownKeyIsRefusedWithEveryKeyTheSourceHas() throws Exception {
        assertThat(
                        cli(
                                "validate",
                                "--flow",
                                flow("debezium-json", "value.source.timestmp").toString()))
                .isEqualTo(1);
        assertThat(err.toString())
                .contains("no metadata 'value.source.timestmp'")
                .contains("format debezium-json has value.ingestion-timestamp,")
                .contains("value.source.timestamp")
                .contains("the filesystem connector has file.path, file.name");
        err.reset();
        assertThat(cli("validate", "--flow", flow("json", "source.timestamp").toString()))
                .isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "no metadata 'value.source.timestamp': format json has no metadata of its"
                                + " own")
                .contains("the filesystem connector has file.path");
    }
}
