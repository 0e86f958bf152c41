package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The planner's messages about what a flow reads: a source whose file is missing or whose format or
 * connector Flink lacks (on the CREATE TABLE's line), a condition comparing with an unquoted value
 * (on its line), a SQL statement that runs on into the next.
 */
class SourceMessagesTest {
    @TempDir Path dir;

    /** A filesystem source with these options, and a flow over it deleting on {@code delete}. */
    private static String script(String options, String delete) {
        return """
        CREATE TEMPORARY TABLE users_cdf (userId INT, name STRING, operation STRING,
          sequenceNum INT)
        WITH ('connector' = 'filesystem', %s);

        CREATE OR REFRESH STREAMING TABLE users_history;

        CREATE FLOW apply_cdc AS AUTO CDC INTO users_history
        FROM STREAM(users_cdf)
        KEYS (userId)
        APPLY AS DELETE WHEN
          %s
        SEQUENCE BY sequenceNum
        STORED AS SCD TYPE 2;
        """
                .formatted(options, delete);
    }

    private static void rejects(String script, String message) {
        assertThat(message(script)).isEqualTo(message);
    }

    /** The message validate fails the script with. */
    private static String message(String script) {
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        Throwable e =
                catchThrowable(() -> new FlowPlanner(tEnv, false).plan(FlowScript.parse(script)));
        assertThat(e).isInstanceOf(FlowSyntaxException.class);
        return e.getMessage();
    }

    private String file() throws Exception {
        return Files.writeString(dir.resolve("users.json"), "").toString();
    }

    @Test
    void aMissingFileIsNamedOnItsTablesLine() {
        String path = dir.resolve("missing.json").toString();
        rejects(
                script("'path' = '" + path + "', 'format' = 'json'", "operation = 'DELETE'"),
                "line 1, CREATE TABLE users_cdf: 'path' = '"
                        + path
                        + "' does not exist; flow apply_cdc reads this table. Correct 'path' (a"
                        + " relative path is read from the directory the command runs in), or"
                        + " create the file or directory before the run");
    }

    @Test
    void aMissingWatchedDirectoryIsRefusedWithTheCommandThatCreatesIt() {
        String path = dir.resolve("exports").toString();
        rejects(
                script(
                        "'path' = '"
                                + path
                                + "', 'format' = 'json', 'source.monitor-interval' = '10 s'",
                        "operation = 'DELETE'"),
                "line 1, CREATE TABLE users_cdf: 'path' = '"
                        + path
                        + "' does not exist; flow apply_cdc reads this table. Create the directory"
                        + " before the run (mkdir -p "
                        + path
                        + "): Flink's filesystem source fails on a directory that does not exist,"
                        + " also one it watches ('source.monitor-interval')");
    }

    @Test
    void aMissingFileBehindAViewIsNamedToo() {
        String path = dir.resolve("missing.json").toString();
        String script =
                script("'path' = '" + path + "', 'format' = 'json'", "operation = 'DELETE'")
                        .replace(
                                "CREATE OR REFRESH",
                                "CREATE TEMPORARY VIEW recent AS SELECT * FROM users_cdf;\n"
                                        + "CREATE OR REFRESH")
                        .replace("STREAM(users_cdf)", "STREAM(recent)");
        rejects(
                script,
                "line 1, CREATE TABLE users_cdf: 'path' = '"
                        + path
                        + "' does not exist; flow apply_cdc reads this table. Correct 'path' (a"
                        + " relative path is read from the directory the command runs in), or"
                        + " create the file or directory before the run");
    }

    @Test
    void anUnknownFormatIsNamedOnItsTablesLineWithTheFormatsFlinkHas() throws Exception {
        String path = file();
        assertThat(message(script("'path' = '" + path + "', 'format' = 'jsn'", "operation = 'D'")))
                .startsWith(
                        "line 1, CREATE TABLE users_cdf: unknown format 'jsn' ('format', read by"
                                + " flow apply_cdc); did you mean 'json'? the formats Flink has"
                                + " are ")
                .contains("debezium-json, json,");
        String kafak =
                script("'path' = '" + path + "', 'format' = 'json'", "operation = 'D'")
                        .replace("'filesystem'", "'kafak'");
        assertThat(message(kafak))
                .startsWith(
                        "line 1, CREATE TABLE users_cdf: unknown connector 'kafak' ('connector',"
                                + " read by flow apply_cdc); did you mean 'kafka'? the source"
                                + " connectors Flink has are ")
                .contains("filesystem,");
    }

    @Test
    void aConditionComparingWithAnUnquotedValueSaysToQuoteIt() throws Exception {
        String options = "'path' = '" + file() + "', 'format' = 'json'";
        rejects(
                script(options, "operation = DELETE"),
                "line 11, APPLY AS DELETE WHEN: DELETE is not a column of users_cdf but a value"
                        + " written without quotes; quote the literal: operation = 'DELETE'");
        rejects(
                script(options, "operation IN (REMOVED, 'GONE')"),
                "line 11, APPLY AS DELETE WHEN: REMOVED is not a column of users_cdf but a value"
                        + " written without quotes; quote the literal: operation IN ('REMOVED',"
                        + " 'GONE')");
    }

    @Test
    void aStatementRunningOnIntoTheNextSaysWhereTheSemicolonGoes() throws Exception {
        String options = "'path' = '" + file() + "', 'format' = 'json'";
        rejects(
                script(options, "operation = 'DELETE'").replaceFirst("\\);\n", ")\n"),
                "line 3, CREATE TEMPORARY TABLE users_cdf: the statement runs on into CREATE on"
                        + " line 5; end the statement on line 3 with ;");
        rejects(
                "SET 'pipeline.name' = 'users'\n" + script(options, "operation = 'DELETE'"),
                "line 1, SET: the statement runs on into CREATE on line 2; end the statement on"
                        + " line 1 with ;");
    }

    @Test
    void aBatchRuntimeModeIsRefusedOnItsLineNamingTheSqlCommand() throws Exception {
        String path = file();
        assertThat(
                        message(
                                "SET 'execution.runtime-mode' = 'batch';\n"
                                        + script(
                                                "'path' = '" + path + "', 'format' = 'json'",
                                                "operation = 'D'")))
                .startsWith("line 1, SET: a flow file runs as one streaming job")
                .contains("autocdc sql --flow FILE.sql");
    }
}
