package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input through the CLI, as a user meets it (semantics §11): every record is either applied or
 * a counted dead letter with its whole payload, and the console says how many and why.
 */
class BadInputTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    /** A flow file over one JSON lines feed; %s in {@code script} is the feed's path. */
    private Path flow(String script, String... lines) throws Exception {
        Path feed = write("feed.json", String.join("\n", lines) + "\n");
        return write("flow.sql", script.formatted(feed));
    }

    @Test
    void columnsNamedLikeTheEnginesOwnAreData() throws Exception {
        Path flow =
                flow(
                        """
                        CREATE TABLE feed (id INT, __seq INT, __delete BOOLEAN, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                        SEQUENCE BY ts STORED AS SCD TYPE 2;
                        """,
                        // ordered by __seq, the second event would come first; __delete is data
                        "{\"id\": 1, \"__seq\": 9, \"__delete\": true, \"ts\": 1}",
                        "{\"id\": 1, \"__seq\": 1, \"__delete\": true, \"ts\": 2}");
        Path result = dir.resolve("t.jsonl");
        assertThat(cli("run", "--flow", flow.toString(), "--materialize", result.toString()))
                .as(err.toString())
                .isZero();
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"id\": 1, \"__seq\": 9, \"__delete\": true, \"ts\": 1, \"__START_AT\":"
                                + " 1, \"__END_AT\": 2}",
                        "{\"id\": 1, \"__seq\": 1, \"__delete\": true, \"ts\": 2, \"__START_AT\":"
                                + " 2, \"__END_AT\": null}");
    }

    @Test
    void aKeptColumnNamedLikeATargetsOwnIsRefusedWithTheFix() throws Exception {
        Path flow =
                flow(
                        """
                        CREATE TABLE feed (id INT, __START_AT INT, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                        SEQUENCE BY ts STORED AS SCD TYPE 2;
                        """,
                        "{\"id\": 1, \"__START_AT\": 9, \"ts\": 1}");
        assertThat(cli("validate", "--flow", flow.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains("line 4")
                .contains("COLUMNS")
                .contains("has its own __START_AT column")
                .contains("COLUMNS * EXCEPT (__START_AT)");
    }

    @Test
    void deadLettersAreCountedByReasonAndWrittenWholeToAFile() throws Exception {
        Path flow =
                flow(
                        """
                        CREATE TABLE feed (id INT, name STRING, note STRING, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                        SEQUENCE BY ts COLUMNS * EXCEPT (note, ts);
                        """,
                        "{\"id\": 1, \"name\": \"a\", \"note\": \"kept\", \"ts\": 1}",
                        "{\"id\": null, \"name\": \"b\", \"note\": \"no key\", \"ts\": 2}",
                        "{\"id\": 2, \"name\": \"c\", \"note\": \"no sequence\", \"ts\": null}",
                        "{\"id\": 3, \"name\": \"d\", \"note\": \"no key either\"}");
        Path letters = dir.resolve("letters.jsonl");
        Path result = dir.resolve("t.jsonl");
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
        assertThat(Files.readAllLines(result)).containsExactly("{\"id\": 1, \"name\": \"a\"}");
        assertThat(err.toString())
                .contains(
                        "autocdc: flow f: 3 dead letters (NULL_KEY 1, NULL_SEQUENCE 2) written to "
                                + letters
                                + ", 0 late events");
        List<String> written = Files.readAllLines(letters);
        assertThat(written).hasSize(3).allMatch(l -> l.contains("\"source\": \"feed\""));
        // the payload is the whole record, with the columns the target leaves out; the engine's
        // refusals keep the record's bytes too
        String raw =
                Base64.getEncoder()
                        .encodeToString(
                                "{\"id\": null, \"name\": \"b\", \"note\": \"no key\", \"ts\": 2}"
                                        .getBytes(StandardCharsets.UTF_8));
        assertThat(written)
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains("\"reason\": \"NULL_KEY\"")
                                        .contains(
                                                "\"payload\": \"{\\\"id\\\": null, \\\"name\\\":"
                                                    + " \\\"b\\\", \\\"note\\\": \\\"no key\\\","
                                                    + " \\\"ts\\\": 2}\"")
                                        .contains("\"raw\": \"" + raw + "\""));
    }

    /**
     * A dead letter's payload is the record as the source's JSON format writes it (ROW fields as
     * objects, SQL timestamps): fixed, it goes back into the source as it is.
     */
    @Test
    void aFixedPayloadReplaysIntoTheSourceUnchanged() throws Exception {
        String script =
                """
                CREATE TABLE feed (id INT, addr ROW<city STRING, zip INT>, seen TIMESTAMP(3),
                                   tags ARRAY<STRING>, price DECIMAL(10, 2), ts INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE t;
                CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                SEQUENCE BY ts COLUMNS * EXCEPT (ts);
                """;
        Path flow =
                flow(
                        script,
                        "{\"id\": null, \"addr\": {\"city\": \"Oaxaca\", \"zip\": 68000},"
                                + " \"seen\": \"2026-11-30 10:15:30.25\", \"tags\": [\"a\", \"b\"],"
                                + " \"price\": 12.50, \"ts\": 1}");
        Path letters = dir.resolve("letters.jsonl");
        assertThat(cli("run", "--flow", flow.toString(), "--dead-letters", letters.toString()))
                .as(err.toString())
                .isZero();
        String payload =
                new org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(Files.readAllLines(letters).get(0))
                        .path("payload")
                        .asText();
        assertThat(payload)
                .isEqualTo(
                        "{\"id\": null, \"addr\": {\"city\": \"Oaxaca\", \"zip\": 68000}, \"seen\":"
                            + " \"2026-11-30 10:15:30.25\", \"tags\": [\"a\", \"b\"], \"price\":"
                            + " 12.50, \"ts\": 1}");
        // fixed, and replayed as the feed
        Path replay =
                write(
                        "replay.sql",
                        script.formatted(
                                write(
                                        "fixed.json",
                                        payload.replace("\"id\": null", "\"id\": 7") + "\n")));
        Path result = dir.resolve("t.jsonl");
        assertThat(cli("run", "--flow", replay.toString(), "--materialize", result.toString()))
                .as(err.toString())
                .isZero();
        assertThat(Files.readAllLines(result))
                .containsExactly(
                        "{\"id\": 7, \"addr\": {\"city\": \"Oaxaca\", \"zip\": 68000},"
                                + " \"seen\": \"2026-11-30 10:15:30.25\", \"tags\": [\"a\", \"b\"],"
                                + " \"price\": 12.50}");
    }

    @Test
    void withoutAFileTheConsoleSaysTheLettersWereOnlyLogged() throws Exception {
        Path flow =
                flow(
                        """
                        CREATE TABLE feed (id INT, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                        SEQUENCE BY ts;
                        """,
                        "{\"id\": 1, \"ts\": 1}", "{\"id\": null, \"ts\": 2}");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                dir.resolve("t.jsonl").toString()))
                .as(err.toString())
                .isZero();
        assertThat(err.toString())
                .contains("autocdc: flow f: 1 dead letter (NULL_KEY 1) logged only")
                .contains("set 'autocdc.f.dead-letter-table' or run with --dead-letters");
    }

    @Test
    void aCastThatCannotConvertIsADeadLetterNamingTheClause() throws Exception {
        Path flow =
                flow(
                        """
                        CREATE TABLE feed (id INT, op STRING, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                        APPLY AS DELETE WHEN CAST(op AS INT) = 1
                        SEQUENCE BY ts COLUMNS * EXCEPT (op);
                        """,
                        "{\"id\": 1, \"op\": \"0\", \"ts\": 1}",
                        // a delete nobody can read: neither applied nor taken for an upsert
                        "{\"id\": 1, \"op\": \"x\", \"ts\": 2}",
                        "{\"id\": 2, \"op\": \"0\", \"ts\": 1}",
                        "{\"id\": 2, \"op\": \"1\", \"ts\": 2}",
                        "{\"id\": 3, \"op\": null, \"ts\": 1}");
        Path letters = dir.resolve("letters.jsonl");
        Path result = dir.resolve("t.jsonl");
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
                .containsExactly("{\"id\": 1, \"ts\": 1}", "{\"id\": 3, \"ts\": 1}");
        assertThat(Files.readAllLines(letters))
                .singleElement()
                .asString()
                .contains("\"reason\": \"BAD_CAST\"")
                .contains("a CAST in APPLY AS DELETE WHEN could not convert the record's value")
                .contains("\\\"op\\\": \\\"x\\\"");
    }

    @Test
    void bytesKeysAreKeysByValue() throws Exception {
        Path flow =
                flow(
                        """
                        CREATE TABLE feed (k BYTES, v STRING, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (k)
                        SEQUENCE BY ts COLUMNS * EXCEPT (ts);
                        """,
                        "{\"k\": \"AQI=\", \"v\": \"old\", \"ts\": 1}",
                        "{\"k\": \"AQI=\", \"v\": \"new\", \"ts\": 2}",
                        "{\"k\": \"/w==\", \"v\": \"other\", \"ts\": 1}");
        Path result = dir.resolve("t.jsonl");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                result.toString(),
                                "--parallelism",
                                "2"))
                .as(err.toString())
                .isZero();
        assertThat(Files.readAllLines(result))
                .containsExactlyInAnyOrder(
                        "{\"k\": \"AQI=\", \"v\": \"new\"}", "{\"k\": \"/w==\", \"v\": \"other\"}");
    }

    private static final String NUMBERS =
            """
            CREATE TABLE feed (id INT, amount DECIMAL(5, 2), seq BIGINT)
            WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
            CREATE OR REFRESH STREAMING TABLE t;
            CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
            SEQUENCE BY seq COLUMNS * EXCEPT (seq);
            """;

    /**
     * Issue 13, items 3, 6 and 7, and issue 39 item 6: the default for a plain json source, as the
     * README has it.
     */
    @Test
    void unreadableBlankAndInexactRecordsAreDeadLettersWithTheirBytes() throws Exception {
        Path flow =
                flow(
                        NUMBERS,
                        "{\"id\": 1, \"amount\": 1.5, \"seq\": 1}",
                        "{\"id\": 2, \"amount\": \"2.25\", \"seq\": \"1\"}",
                        "{\"id\": 3, \"amount\": 999.99, \"seq\": 1e2}",
                        "{not json",
                        "   ",
                        "{\"id\": 22.7, \"amount\": 1, \"seq\": 1}",
                        "{\"id\": 4, \"amount\": 1, \"seq\": 1.5}",
                        "{\"id\": 3000000000, \"amount\": 1, \"seq\": 1}",
                        "{\"id\": 5, \"amount\": 1.234, \"seq\": 1}",
                        "{\"id\": 6, \"amount\": 12345.6, \"seq\": 1}",
                        "{\"id\": 7, \"amount\": 1, \"seq\": 99999999999999999999}",
                        // ambiguous: which value counts differs between JSON readers
                        "{\"id\": 26, \"id\": 27, \"amount\": 1, \"seq\": 1}",
                        "{\"id\": 8, \"amount\": 1, \"seq\": 1, \"seq\": 2}");
        Path letters = dir.resolve("letters.jsonl");
        Path result = dir.resolve("t.jsonl");
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
                        "{\"id\": 1, \"amount\": 1.50}",
                        "{\"id\": 2, \"amount\": 2.25}",
                        "{\"id\": 3, \"amount\": 999.99}");
        assertThat(err.toString())
                .contains(
                        "autocdc: flow f: 10 dead letters (BLANK_RECORD 1, DUPLICATE_FIELD 2,"
                                + " INEXACT_NUMBER 6, PARSE_ERROR 1) written to");
        List<String> written = Files.readAllLines(letters);
        assertThat(written)
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains("\"reason\": \"PARSE_ERROR\"")
                                        .contains("\"payload\": \"{not json\"")
                                        .contains("\"raw\": \"e25vdCBqc29u\""))
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains("\"reason\": \"DUPLICATE_FIELD\"")
                                        .contains("field \\\"seq\\\" is written twice"))
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains(
                                                "column id (INT) cannot hold 22.7 exactly: it has a"
                                                        + " fraction"))
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains(
                                                "column amount (DECIMAL(5, 2)) cannot hold 1.234"
                                                        + " exactly: it has more than 2 digits"
                                                        + " after the point"));
    }

    @Test
    void badRecordsFailReadsTheSourceAsFlinkDoes() throws Exception {
        Path flow =
                flow(
                        "SET 'autocdc.f.bad-records' = 'fail';\n" + NUMBERS,
                        "{\"id\": 1, \"amount\": 1.5, \"seq\": 1}",
                        "{not json");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                dir.resolve("t.jsonl").toString()))
                .isEqualTo(1);
    }

    /** Issue 13, item 15: at once, naming the table and the setting, not after 74 s. */
    @Test
    void aKafkaSourceWithNoBrokerStopsTheRunNamingTableAndSetting() throws Exception {
        Path flow =
                write(
                        "kafka.sql",
                        """
                        CREATE TABLE feed (id INT, ts INT)
                        WITH ('connector' = 'kafka', 'topic' = 'feed', 'format' = 'json',
                              'properties.bootstrap.servers' = 'localhost:1',
                              'scan.startup.mode' = 'earliest-offset');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id) SEQUENCE BY ts;
                        """);
        assertThat(cli("run", "--flow", flow.toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "autocdc: source table feed: no Kafka broker answered at localhost:1"
                                + " ('properties.bootstrap.servers') within 10 s");
    }

    /** Review findings: what the format or the condition could still lose or misplace. */
    @Test
    void ignoreParseErrorsArraysAndLazyCastsLoseNothing() throws Exception {
        Path flow =
                flow(
                        """
                        CREATE TABLE feed (id INT, kind STRING, v STRING, ts INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json',
                              'json.ignore-parse-errors' = 'true');
                        CREATE OR REFRESH STREAMING TABLE t;
                        CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(feed) KEYS (id)
                        APPLY AS DELETE WHEN kind = 'n' AND CAST(v AS INT) = 0
                        SEQUENCE BY ts COLUMNS * EXCEPT (kind, v);
                        """,
                        // the CAST is never evaluated for kind 's': applied, not a dead letter
                        "{\"id\": 1, \"kind\": \"s\", \"v\": \"abc\", \"ts\": 1}",
                        "{\"id\": 2, \"kind\": \"n\", \"v\": \"abc\", \"ts\": 1}",
                        "{not json, and ignore-parse-errors would have dropped it",
                        "[null]",
                        "[]",
                        "[{\"id\": 22.7, \"ts\": 1}]",
                        "[{\"id\": 3, \"ts\": 1}, {\"id\": 4, \"ts\": 1}]");
        Path letters = dir.resolve("letters.jsonl");
        Path result = dir.resolve("t.jsonl");
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
                        "{\"id\": 1, \"ts\": 1}",
                        "{\"id\": 3, \"ts\": 1}",
                        "{\"id\": 4, \"ts\": 1}");
        assertThat(err.toString())
                .contains(
                        "autocdc: flow f: 5 dead letters (BAD_CAST 1, INEXACT_NUMBER 1,"
                                + " PARSE_ERROR 3) written to");
    }

    @Test
    void lettersOfSeveralFlowsShareTheFileLineByLine() throws Exception {
        StringBuilder bad = new StringBuilder();
        for (int i = 0; i < 400; i++) {
            bad.append("{\"id\": null, \"ts\": ").append(i).append(", \"pad\": \"");
            bad.append("x".repeat(200)).append("\"}\n");
        }
        Path feed = write("feed.json", bad.toString());
        Path flow =
                write(
                        "two.sql",
                        """
                        CREATE TABLE feed (id INT, ts INT, pad STRING)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE t1;
                        CREATE OR REFRESH STREAMING TABLE t2;
                        CREATE FLOW f1 AS AUTO CDC INTO t1 FROM STREAM(feed) KEYS (id) SEQUENCE BY ts;
                        CREATE FLOW f2 AS AUTO CDC INTO t2 FROM STREAM(feed) KEYS (id) SEQUENCE BY ts;
                        """
                                .formatted(feed));
        Path letters = dir.resolve("letters.jsonl");
        assertThat(
                        cli(
                                "run",
                                "--flow",
                                flow.toString(),
                                "--materialize",
                                dir.resolve("t.jsonl").toString(),
                                "--dead-letters",
                                letters.toString(),
                                "--parallelism",
                                "2"))
                .as(err.toString())
                .isZero();
        assertThat(Files.readAllLines(letters))
                .hasSize(800)
                .allSatisfy(l -> assertThat(l).startsWith("{\"flow\": \"f").endsWith("}"));
    }
}
