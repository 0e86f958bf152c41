package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.job.cli.LakeTargetsTest.Lake;
import dev.autocdc.job.ops.Rebuild;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code autocdc rebuild}: the flow file of a rebuild renames each flow (new state, new uids) and
 * its target (a new table), reads Kafka sources from their start under a group of their own, and
 * leaves the running flows and their targets alone.
 */
class RebuildTest {
    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private static final String USERS_SCD2 =
            """
            123|Isabel|Monterrey|1|5
            123|Isabel|Chihuahua|5|6
            124|Raul|Oaxaca|1|null
            125|Mercedes|Tijuana|2|5
            125|Mercedes|Mexicali|5|6
            125|Mercedes|Guadalajara|6|null
            126|Lily|Cancun|2|null\
            """;

    @Test
    void theRebuildWritesANewTableAndLeavesTheOldOne() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        Path flow = dir.resolve("users.sql");
        Files.writeString(
                flow,
                Lake.PAIMON.createCatalog(warehouse)
                        + """

                        CREATE DATABASE IF NOT EXISTS lake.hr;
                        CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
                        WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
                        SET 'autocdc.apply_cdc.tombstone-retention' = '7 d';
                        CREATE OR REFRESH STREAMING TABLE lake.hr.users WITH ('bucket' = '1');
                        CREATE FLOW apply_cdc AS AUTO CDC INTO lake.hr.users
                        FROM STREAM(users_cdf)
                        KEYS (userId)
                        APPLY AS DELETE WHEN operation = "DELETE"
                        SEQUENCE BY sequenceNum
                        COLUMNS * EXCEPT (operation, sequenceNum)
                        STORED AS SCD TYPE 2;
                        """
                                .formatted(CliTest.usersFeed()));
        assertThat(cli("run", "--flow", flow.toString())).as(err.toString()).isZero();

        assertThat(cli("rebuild", "--flow", flow.toString(), "--suffix", "v2"))
                .as(err.toString())
                .isZero();
        Path rebuilt = dir.resolve("users_v2.sql");
        assertThat(out.toString())
                .contains("wrote " + rebuilt)
                .contains("flow apply_cdc_v2 into lake.hr.users_v2, from users_cdf from its start")
                .contains("without a savepoint");
        assertThat(Files.readString(rebuilt))
                .contains("SET 'autocdc.apply_cdc_v2.tombstone-retention' = '7 d'")
                .contains(
                        "CREATE OR REFRESH STREAMING TABLE lake.hr.users_v2 WITH ('bucket' = '1')")
                .contains("CREATE FLOW apply_cdc_v2 AS AUTO CDC INTO lake.hr.users_v2");

        assertThat(cli("run", "--flow", rebuilt.toString())).as(err.toString()).isZero();
        assertThat(Lake.PAIMON.read(warehouse, "users_v2").rows())
                .containsExactlyInAnyOrder(USERS_SCD2.split("\n"));
        assertThat(Lake.PAIMON.read(warehouse, "users").rows())
                .containsExactlyInAnyOrder(USERS_SCD2.split("\n"));
    }

    /**
     * A name in a comment is never the one renamed, a flow reading another's target reads the new
     * one, and an erasures table keeps its offsets (erasures are produced again once caught up).
     */
    @Test
    void commentsChainedFlowsAndErasures() {
        String rebuilt =
                Rebuild.of(
                        """
                        CREATE TABLE src (id INT, v STRING, seq INT)
                        WITH ('connector' = 'kafka', 'topic' = 'events', 'format' = 'json');
                        CREATE TABLE erasures (id INT)
                        WITH ('connector' = 'kafka', 'topic' = 'erasures', 'properties.group.id' = 'e',
                              'format' = 'json');
                        SET 'autocdc.f.erasures-table' = 'erasures';
                        CREATE OR REFRESH STREAMING TABLE lake.db.t;
                        -- this flow writes INTO lake.db.t
                        CREATE FLOW f AS AUTO CDC INTO lake.db.t FROM STREAM(src) KEYS (id)
                        SEQUENCE BY seq STORED AS SCD TYPE 1;
                        CREATE OR REFRESH STREAMING TABLE lake.db.u;
                        CREATE FLOW g AS AUTO CDC INTO lake.db.u FROM STREAM(lake.db.t) KEYS (id)
                        SEQUENCE BY seq STORED AS SCD TYPE 1;
                        """,
                        "v2");
        assertThat(rebuilt)
                .doesNotContain("--  this flow")
                .doesNotContain("this flow writes")
                .contains("CREATE FLOW f_v2 AS AUTO CDC INTO lake.db.t_v2 FROM STREAM(src)")
                .contains(
                        "CREATE FLOW g_v2 AS AUTO CDC INTO lake.db.u_v2 FROM STREAM(lake.db.t_v2)")
                .contains("SET 'autocdc.f_v2.erasures-table' = 'erasures'")
                .contains(
                        "WITH ('connector' = 'kafka', 'topic' = 'erasures',"
                                + " 'properties.group.id' = 'e',\n      'format' = 'json')");
    }

    @Test
    void kafkaSourcesStartOverAndConnectorTargetsGetAPlaceOfTheirOwn() {
        String rebuilt =
                Rebuild.of(
                        """
                        CREATE TABLE src (id INT, v STRING, seq INT)
                        WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.group.id' = 'flows',
                              'scan.startup.mode' = 'group-offsets', 'format' = 'json');
                        CREATE TABLE letters (id INT) WITH ('connector' = 'kafka', 'topic' = 'letters', 'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE `t` WITH ('connector' = 'upsert-kafka', 'topic' = 't',
                              'key.format' = 'json', 'value.format' = 'json');
                        CREATE FLOW f AS AUTO CDC INTO `t` FROM STREAM(src) KEYS (id) SEQUENCE BY seq
                        STORED AS SCD TYPE 1;
                        """,
                        "r1");
        assertThat(rebuilt)
                .contains(
                        "'properties.group.id' = 'flows-rebuild-r1',"
                                + "\n      'scan.startup.mode' = 'earliest-offset'")
                .contains(
                        "WITH ('properties.group.id' = 'autocdc-rebuild-r1', 'scan.startup.mode' ="
                                + " 'earliest-offset', 'connector' = 'kafka', 'topic' = 'letters'")
                .contains(
                        "STREAMING TABLE `t_r1` WITH ('connector' = 'upsert-kafka', 'topic' ="
                                + " 't_r1'")
                .contains("CREATE FLOW f_r1 AS AUTO CDC INTO `t_r1` FROM STREAM(src)")
                .contains("'topic' = 'events'");
        assertThatThrownBy(
                        () ->
                                Rebuild.of(
                                        "CREATE TABLE src (id INT, seq INT) WITH ('connector' ="
                                                + " 'datagen');\n"
                                                + "CREATE OR REFRESH STREAMING TABLE t WITH"
                                                + " ('connector' = 'print');\n"
                                                + "CREATE FLOW f AS AUTO CDC INTO t FROM"
                                                + " STREAM(src) KEYS (id) SEQUENCE BY seq STORED AS"
                                                + " SCD TYPE 1;",
                                        "r1"))
                .hasMessageContaining(
                        "line 2: the target's WITH names no topic, table-name, path; rebuild"
                                + " cannot give its copy a place of its own");
    }

    private int cli(String... args) {
        out.reset();
        return new AutoCdcCli(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
    }
}
