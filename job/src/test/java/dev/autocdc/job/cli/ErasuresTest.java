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
 * The erasures setting as a user meets it in the CLI: validate says where a flow's erasures come
 * from, and refuses a table without the flow's key columns, naming the setting's line. What an
 * erasure does in a running job is DayTwoOperationsTest's (cluster module) and EraseTest's.
 */
class ErasuresTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void validateNamesTheErasuresTable() throws Exception {
        assertThat(cli("validate", "--flow", flow("userId INT").toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString())
                .contains(
                        "  erasures: each row of erasures erases its key (the key columns, by"
                                + " name)")
                .contains("CAST(NULL AS BOOLEAN) AS `__erase`");
    }

    @Test
    void aTableWithoutTheKeyColumnsIsRefusedNamingTheLine() throws Exception {
        assertThat(cli("validate", "--flow", flow("id INT").toString())).isEqualTo(1);
        assertThat(err.toString())
                .contains(
                        "line 3, SET: autocdc.users.erasures-table names erasures, which Flink"
                                + " cannot read the flow's key columns [userId] from");
    }

    private Path flow(String erasureColumns) throws Exception {
        Path flow = dir.resolve("users.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                SET 'autocdc.users.erasures-table' = 'erasures';
                CREATE TABLE erasures (%s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                CREATE OR REFRESH STREAMING TABLE users_target;
                CREATE FLOW users AS AUTO CDC INTO users_target
                FROM STREAM(users_cdf)
                KEYS (userId)
                APPLY AS DELETE WHEN operation = "DELETE"
                SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum)
                STORED AS SCD TYPE 2;
                """
                        .formatted(
                                CliTest.usersFeed(), erasureColumns, dir.resolve("erasures.json")));
        Files.writeString(dir.resolve("erasures.json"), "");
        return flow;
    }

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }
}
