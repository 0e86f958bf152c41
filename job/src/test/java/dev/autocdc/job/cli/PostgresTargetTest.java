package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.postgres.PostgresServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PostgreSQL table as the target, through Flink's JDBC connector, on a real server the test
 * starts ({@link PostgresServer}): the users walkthrough's SCD type 2 history upserted by its
 * primary key, read back and asked as of a sequence in plain SQL over JDBC, not through Flink.
 */
class PostgresTargetTest {
    private static PostgresServer postgres;

    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void server() throws Exception {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void scd2HistoryUpsertedByItsPrimaryKeyAndAskedAsOfASequence() throws Exception {
        // the JDBC connector writes into a table that exists, naming its columns unquoted
        sql(
                "CREATE TABLE users_history (userId INT NOT NULL, name TEXT, city TEXT,"
                        + " __START_AT INT NOT NULL, __END_AT INT,"
                        + " PRIMARY KEY (userId, __START_AT))");
        Path flow = dir.resolve("users.sql");
        Files.writeString(
                flow,
                """
                CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');

                CREATE OR REFRESH STREAMING TABLE users_history
                WITH ('connector' = 'jdbc', 'url' = '%s', 'table-name' = 'users_history',
                      'username' = 'postgres', 'password' = '');

                CREATE FLOW apply_cdc AS AUTO CDC INTO users_history
                FROM STREAM(users_cdf)
                KEYS (userId)
                APPLY AS DELETE WHEN operation = "DELETE"
                SEQUENCE BY sequenceNum
                COLUMNS * EXCEPT (operation, sequenceNum)
                STORED AS SCD TYPE 2;
                """
                        .formatted(CliTest.usersFeed(), postgres.url()));

        assertThat(cli("validate", "--flow", flow.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).contains("changelog mode: upsert");
        List<String> history =
                List.of(
                        "123|Isabel|Monterrey|1|5",
                        "123|Isabel|Chihuahua|5|6",
                        "124|Raul|Oaxaca|1|null",
                        "125|Mercedes|Tijuana|2|5",
                        "125|Mercedes|Mexicali|5|6",
                        "125|Mercedes|Guadalajara|6|null",
                        "126|Lily|Cancun|2|null");
        for (int run = 1; run <= 2; run++) { // a second run upserts the same rows onto them
            assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();
            assertThat(
                            query(
                                    "SELECT userId, name, city, __START_AT, __END_AT"
                                            + " FROM users_history"))
                    .as("run " + run)
                    .containsExactlyInAnyOrderElementsOf(history);
        }
        assertThat(
                        query(
                                "SELECT userId, name, city FROM users_history"
                                        + " WHERE __START_AT <= 5"
                                        + " AND (__END_AT IS NULL OR __END_AT > 5)"
                                        + " ORDER BY userId"))
                .as("the table as of sequence 5")
                .containsExactly(
                        "123|Isabel|Chihuahua",
                        "124|Raul|Oaxaca",
                        "125|Mercedes|Mexicali",
                        "126|Lily|Cancun");
    }

    private int cli(String... args) {
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }

    private static void sql(String statement) throws Exception {
        try (Connection c = postgres.connect();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private static List<String> query(String select) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = postgres.connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(select)) {
            int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                List<String> values = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    values.add(String.valueOf(r.getObject(i)));
                }
                rows.add(String.join("|", values));
            }
        }
        return rows;
    }
}
