package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Planning: every validation rule, with its message, and the Java builder giving the SQL form's
 * plan.
 */
class FlowPlannerTest {
    private static final String SOURCE =
            "CREATE TEMPORARY TABLE src (id INT, name STRING, city STRING, op STRING, seq BIGINT,"
                + " recorded TIMESTAMP(3), score DOUBLE, cols ARRAY<STRING>) WITH ('connector' ="
                + " 'datagen');\n"
                + "CREATE OR REFRESH STREAMING TABLE t;\n";

    private static final String LETTERS =
            "CREATE TEMPORARY TABLE %s (flow STRING, source STRING, reason STRING, message STRING,"
                    + " payload STRING, topic STRING, `partition` INT, `offset` BIGINT, raw_bytes"
                    + " BYTES) WITH ('connector' = 'blackhole');\n";

    private StreamTableEnvironment tEnv;

    @BeforeEach
    void environment() {
        tEnv = StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
    }

    private List<PlannedFlow> plan(String flowClauses) {
        environment(); // a fresh catalog per plan
        return new FlowPlanner(tEnv)
                .plan(
                        FlowScript.parse(
                                SOURCE
                                        + "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src)\n"
                                        + flowClauses
                                        + ";"));
    }

    private void rejects(String flowClauses, String message) {
        assertThatThrownBy(() -> plan(flowClauses))
                .isInstanceOf(FlowSyntaxException.class)
                .hasMessageContaining(message);
    }

    @Test
    void plansAFlowWithEveryOption() {
        PlannedFlow f =
                plan("KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY STRUCT(seq, recorded)"
                         + " COLUMNS * EXCEPT (op, cols) COLUMNS TO UPDATE cols STORED AS SCD TYPE"
                         + " 2 TRACK HISTORY ON (name)")
                        .get(0);
        assertThat(f.inputSql())
                .isEqualTo(
                        "SELECT `id`, `name`, `city`, `seq`, `recorded`, `score`, CAST(ROW(`seq`,"
                            + " `recorded`) AS ROW<`seq` BIGINT, `recorded` TIMESTAMP(3)>) AS"
                            + " `__seq`, (op = 'D') AS `__delete`, `cols` AS `__columns_to_update`,"
                            + " CAST(ROW(`op`, `cols`) AS ROW<`op` VARCHAR(2147483647), `cols`"
                            + " ARRAY<VARCHAR(2147483647)>>) AS `__record` FROM `src`");
        assertThat(f.spec().targetType().getFieldNames())
                .containsExactly(
                        "id", "name", "city", "seq", "recorded", "score", "__START_AT", "__END_AT");
        assertThat(f.spec().targetType().getTypeAt(6).asSummaryString())
                .isEqualTo("ROW<`seq` BIGINT, `recorded` TIMESTAMP(3)>");
        assertThat(f.spec().flow().isSequenceColumn(3))
                .as("seq is kept and never tracked")
                .isTrue();
        assertThat(f.spec().flow().isTracked(2)).as("city is not tracked").isFalse();
    }

    @Test
    void aFlowFromSnapshotsLeavesItsVersionColumnsOutUnlessListed() {
        environment();
        List<PlannedFlow> f =
                new FlowPlanner(tEnv)
                        .plan(
                                FlowScript.parse(
                                        SOURCE
                                                + "CREATE FLOW f AS AUTO CDC INTO t FROM"
                                                + " SNAPSHOT(src) KEYS (id) SEQUENCE BY seq SYSTEM"
                                                + " SEQUENCE BY recorded COLUMNS * EXCEPT (op,"
                                                + " cols, seq) STORED AS BITEMPORAL;"));
        assertThat(f.get(0).spec().snapshot()).isTrue();
        assertThat(f.get(0).spec().targetType().getFieldNames())
                .containsExactly(
                        "id",
                        "name",
                        "city",
                        "score",
                        "__START_AT",
                        "__END_AT",
                        "__SYSTEM_START_AT",
                        "__SYSTEM_END_AT");
        environment();
        List<PlannedFlow> kept =
                new FlowPlanner(tEnv)
                        .plan(
                                FlowScript.parse(
                                        SOURCE
                                                + "CREATE FLOW f AS AUTO CDC INTO t FROM"
                                                + " SNAPSHOT(src) KEYS (id) SEQUENCE BY seq"
                                                + " COLUMNS (id, name, seq) STORED AS SCD TYPE"
                                                + " 2;"));
        assertThat(kept.get(0).spec().targetType().getFieldNames())
                .containsExactly("id", "name", "seq", "__START_AT", "__END_AT");
    }

    @Test
    void aFlowFromSnapshotsRefusesSourcesThatCouldNeverOrWronglyCompleteASnapshot() {
        String files =
                "CREATE TEMPORARY TABLE exports (id INT, name STRING, exportDay STRING) WITH"
                        + " ('connector' = 'filesystem', 'path' = '/tmp/none', 'format' = 'json',"
                        + " 'source.monitor-interval' = '1 min');\n"
                        + "CREATE OR REFRESH STREAMING TABLE t;\n";
        String flow =
                "CREATE FLOW f AS AUTO CDC INTO t FROM SNAPSHOT(exports) KEYS (id) SEQUENCE BY"
                        + " exportDay STORED AS SCD TYPE 2;";
        environment();
        assertThatThrownBy(() -> new FlowPlanner(tEnv).plan(FlowScript.parse(files + flow)))
                .isInstanceOf(FlowSyntaxException.class)
                .hasMessageContaining("FROM SNAPSHOT")
                .hasMessageContaining("never ends, and its snapshots cannot be timed");
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "SET 'table.exec.source.idle-timeout' ="
                                                                + " '5 s';\n"
                                                                + files
                                                                + flow)))
                .hasMessageContaining("'table.exec.source.idle-timeout' is PT5S");
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "SET 'autocdc.f.snapshot-hold-threshold' ="
                                                                + " '0.2';\n"
                                                                + SOURCE
                                                                + "CREATE FLOW f AS AUTO CDC INTO t"
                                                                + " FROM STREAM(src) KEYS (id)"
                                                                + " SEQUENCE BY seq;")))
                .hasMessageContaining("only a flow FROM SNAPSHOT holds snapshots");
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "SET 'autocdc.f.snapshot-hold-threshold' ="
                                                                + " '1.5';\n"
                                                                + SOURCE
                                                                + "CREATE FLOW f AS AUTO CDC INTO t"
                                                                + " FROM SNAPSHOT(src) KEYS (id)"
                                                                + " SEQUENCE BY seq;")))
                .hasMessageContaining("between 0 and 1");
    }

    @Test
    void theJavaBuilderPlansLikeTheSqlForm() {
        PlannedFlow sql =
                plan("KEYS (id) APPLY AS DELETE WHEN op = \"D\" SEQUENCE BY seq SYSTEM SEQUENCE BY"
                         + " recorded COLUMNS * EXCEPT (op) IGNORE NULL UPDATES ON (city) STORED AS"
                         + " BITEMPORAL TRACK HISTORY ON * EXCEPT (score)")
                        .get(0);
        AutoCdcFlow built =
                AutoCdcFlow.builder("t", "src")
                        .name("f")
                        .keys("id")
                        .applyAsDeletes("op = 'D'")
                        .sequenceBy("seq")
                        .systemSequenceBy("recorded")
                        .exceptColumnList(List.of("op"))
                        .ignoreNullUpdatesColumnList(List.of("city"))
                        .storedAsScdType("bitemporal")
                        .trackHistoryExceptColumnList(List.of("score"))
                        .build();
        assertThat(built).isEqualTo(sql.flow());
        PlannedFlow fromBuilder =
                new FlowPlanner(tEnv).plan(built, sql.target()); // same catalog as the SQL form
        assertThat(fromBuilder.inputSql()).isEqualTo(sql.inputSql());
        assertThat(fromBuilder.spec().targetType()).isEqualTo(sql.spec().targetType());
        assertThat(fromBuilder.spec().flow().columnNames())
                .isEqualTo(sql.spec().flow().columnNames());
        for (int i = 0; i < sql.spec().flow().columnCount(); i++) {
            assertThat(fromBuilder.spec().flow().isTracked(i))
                    .isEqualTo(sql.spec().flow().isTracked(i));
            assertThat(fromBuilder.spec().flow().ignoresNull(i))
                    .isEqualTo(sql.spec().flow().ignoresNull(i));
        }
    }

    @Test
    void rejectsUnknownColumnsNamingTheClause() {
        rejects(
                "KEYS (nope) SEQUENCE BY seq",
                "line 4, KEYS: unknown column nope; the source's columns are [id, name");
        rejects("KEYS (id) SEQUENCE BY nope", "SEQUENCE BY: unknown column nope");
        rejects("KEYS (id) SEQUENCE BY seq COLUMNS (id, nope)", "COLUMNS: unknown column nope");
        rejects(
                "KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (nope)",
                "COLUMNS * EXCEPT: unknown column nope");
        rejects(
                "KEYS (id) SEQUENCE BY seq TRACK HISTORY ON (nope) STORED AS SCD TYPE 2",
                "TRACK HISTORY ON: unknown column nope");
        rejects(
                "KEYS (id) SEQUENCE BY seq IGNORE NULL UPDATES ON (nope)",
                "IGNORE NULL UPDATES ON: unknown column nope");
        rejects(
                "KEYS (id) SEQUENCE BY seq COLUMNS TO UPDATE nope",
                "COLUMNS TO UPDATE: unknown column nope");
        rejects(
                "KEYS (id) SEQUENCE BY seq SYSTEM SEQUENCE BY nope STORED AS BITEMPORAL",
                "SYSTEM SEQUENCE BY: unknown column nope");
    }

    /**
     * The line of an unknown column is the line it is written on, not the line the statement starts
     * on (issue 40: "line 27" for a column on line 29).
     */
    @Test
    void anUnknownColumnIsReportedOnItsOwnLine() {
        // the statement starts on line 3, its clauses on the lines after
        rejects(
                "KEYS (id)\nSEQUENCE BY seq\nCOLUMNS (id,\n  nope)",
                "line 7, COLUMNS: unknown column nope");
        rejects(
                "KEYS (id)\nSEQUENCE BY seq\nCOLUMNS * EXCEPT (\n  nope)",
                "line 7, COLUMNS * EXCEPT: unknown column nope");
        rejects(
                "KEYS (id)\nSEQUENCE BY seq\nSTORED AS SCD TYPE 2\nTRACK HISTORY ON (name,\n nope)",
                "line 8, TRACK HISTORY ON: unknown column nope");
        rejects("KEYS (id)\n\nSEQUENCE BY\n  nope", "line 7, SEQUENCE BY: unknown column nope");
    }

    @Test
    void rejectsIncompatibleClauses() {
        rejects(
                "KEYS (id) SEQUENCE BY seq APPLY AS TRUNCATE WHEN op = 'T' STORED AS SCD TYPE 2",
                "APPLY AS TRUNCATE WHEN: truncates apply to SCD type 1 only");
        rejects(
                "KEYS (id) SEQUENCE BY seq APPLY AS TRUNCATE WHEN op = 'T' STORED AS BITEMPORAL"
                        + " SYSTEM SEQUENCE BY recorded",
                "APPLY AS TRUNCATE WHEN: truncates apply to SCD type 1 only");
        rejects(
                "KEYS (id) SEQUENCE BY seq SYSTEM SEQUENCE BY recorded STORED AS SCD TYPE 2",
                "SYSTEM SEQUENCE BY: only a bitemporal target has a system time");
        rejects(
                "KEYS (id) SEQUENCE BY seq STORED AS BITEMPORAL",
                "STORED AS BITEMPORAL: a bitemporal target needs SYSTEM SEQUENCE BY");
        rejects(
                "KEYS (id) SEQUENCE BY seq TRACK HISTORY ON (name)",
                "TRACK HISTORY: SCD type 1 keeps no history");
        rejects(
                "KEYS (id) SEQUENCE BY seq IGNORE NULL UPDATES COLUMNS TO UPDATE cols",
                "COLUMNS TO UPDATE: cannot be combined with IGNORE NULL UPDATES");
        rejects(
                "KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (id)",
                "COLUMNS * EXCEPT: key column id cannot be excluded");
        rejects("KEYS (id) SEQUENCE BY score", "SEQUENCE BY: type DOUBLE does not sort");
        rejects(
                "KEYS (id) SEQUENCE BY seq APPLY AS DELETE WHEN op",
                "APPLY AS DELETE WHEN: the condition op is STRING, not BOOLEAN");
        rejects(
                "KEYS (id) SEQUENCE BY seq APPLY AS DELETE WHEN nope = 1",
                "APPLY AS DELETE WHEN: the condition nope = 1 is not valid");
        rejects(
                "KEYS (id) SEQUENCE BY seq COLUMNS TO UPDATE score",
                "COLUMNS TO UPDATE: the column must be ARRAY<STRING> or a STRING");
    }

    @Test
    void rejectsMissingTargetsSecondFlowsAndUnknownSources() {
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "CREATE TEMPORARY TABLE src (id INT, seq"
                                                            + " INT) WITH ('connector' ="
                                                            + " 'datagen');\n"
                                                            + "CREATE FLOW f AS AUTO CDC INTO"
                                                            + " missing FROM src KEYS (id) SEQUENCE"
                                                            + " BY seq;")))
                .hasMessage(
                        "line 2, AUTO CDC INTO: no target missing is declared before the flow;"
                                + " add CREATE OR REFRESH STREAMING TABLE missing;");
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        SOURCE
                                                                + "CREATE FLOW f AS AUTO CDC INTO t"
                                                                + " FROM src KEYS (id) SEQUENCE BY"
                                                                + " seq;\n"
                                                                + "CREATE FLOW g AS AUTO CDC INTO t"
                                                                + " FROM src KEYS (id) SEQUENCE BY"
                                                                + " seq;")))
                .hasMessageContaining(
                        "line 4, AUTO CDC INTO: target t already has an AUTO CDC flow");
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        SOURCE
                                                                + "CREATE FLOW f AS AUTO CDC INTO t"
                                                                + " FROM STREAM(nowhere) KEYS (id)"
                                                                + " SEQUENCE BY seq;")))
                .hasMessageContaining("line 3, FROM: unknown source nowhere");
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "CREATE TEMPORARY TABLE x (id INT) WITH"
                                                                + " ('connector' = 'nope');")))
                .hasMessageContaining("no AUTO CDC flow");
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "CREATE TABLE broken (id INT WITH;")))
                .hasMessageContaining("line 1, SQL: Flink could not run the statement");
    }

    /**
     * A target whose catalog, or whose database in a lake catalog, does not exist is refused when
     * planned, naming what is missing and what exists, in validate (nothing created) and in run.
     */
    @Test
    void aTargetInACatalogOrDatabaseThatDoesNotExistIsRefused(@TempDir Path warehouse) {
        String script =
                "CREATE TEMPORARY TABLE src (id INT, seq BIGINT) WITH ('connector' = 'datagen');\n"
                        + "CREATE CATALOG lake WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "');\n"
                        + "CREATE DATABASE IF NOT EXISTS lake.hr;\n"
                        + "CREATE OR REFRESH STREAMING TABLE %1$s;\n"
                        + "CREATE FLOW f AS AUTO CDC INTO %1$s FROM STREAM(src) KEYS (id) SEQUENCE"
                        + " BY seq;";
        for (boolean run : List.of(false, true)) {
            environment();
            assertThatThrownBy(
                            () ->
                                    new FlowPlanner(tEnv, run)
                                            .plan(
                                                    FlowScript.parse(
                                                            script.formatted(
                                                                    "lak.hr.users_history"))))
                    .isInstanceOf(FlowSyntaxException.class)
                    .hasMessage(
                            "line 4, CREATE OR REFRESH STREAMING TABLE: target lak.hr.users_history"
                                    + " is in catalog lak, which does not exist; the catalogs are"
                                    + " [default_catalog, lake]: declare it with CREATE CATALOG"
                                    + " before the table, or correct the name");
            environment();
            assertThatThrownBy(
                            () ->
                                    new FlowPlanner(tEnv, run)
                                            .plan(
                                                    FlowScript.parse(
                                                            script.formatted(
                                                                    "lake.hrr.users_history"))))
                    .isInstanceOf(FlowSyntaxException.class)
                    .hasMessage(
                            "line 4, CREATE OR REFRESH STREAMING TABLE: target"
                                    + " lake.hrr.users_history is in database hrr of catalog lake,"
                                    + " which has no such database; its databases are [default,"
                                    + " hr]: add CREATE DATABASE IF NOT EXISTS lake.hrr; before the"
                                    + " table, or correct the name");
        }
        environment();
        assertThat(
                        new FlowPlanner(tEnv, false)
                                .plan(FlowScript.parse(script.formatted("lake.hr.users_history"))))
                .hasSize(1);
    }

    @Test
    void perFlowSettingsComeFromSet() {
        String flow =
                "SET 'autocdc.f.changelog-mode' = 'upsert';\n"
                        + "SET 'autocdc.f.tombstone-retention' = 'forever';\n"
                        + "SET 'autocdc.f.history-retention' = '30 d';\n"
                        + "SET 'autocdc.f.state-cache-keys' = '20000';\n"
                        + SOURCE
                        + "CREATE FLOW f AS AUTO CDC INTO t FROM src KEYS (id) SEQUENCE BY seq"
                        + " STORED AS SCD TYPE 2;";
        PlannedFlow f = new FlowPlanner(tEnv).plan(FlowScript.parse(flow)).get(0);
        assertThat(f.spec().outputMode().name()).isEqualTo("UPSERT");
        assertThat(f.spec().tombstoneRetention()).isNull();
        assertThat(f.spec().historyRetention()).hasDays(30);
        assertThat(f.spec().stateCache().keys()).isEqualTo(20_000);
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(FlowScript.parse(flow.replace("30 d", "soon"))))
                .hasMessageContaining("'soon' is not a positive duration");
    }

    /**
     * A flow takes its settings where it is declared: a SET of one below it fails instead of being
     * ignored; the letter tables are wired after the script and may come anywhere.
     */
    @Test
    void settingsBelowTheirFlowFailExceptTheLetterTables() {
        String flow =
                SOURCE
                        + "CREATE FLOW f AS AUTO CDC INTO t FROM src KEYS (id) SEQUENCE BY seq"
                        + " STORED AS SCD TYPE 2;\n"
                        + "SET 'autocdc.f.dead-letter-table' = 'letters';\n"
                        + "SET 'autocdc.f.late-events-table' = 'late';\n"
                        + LETTERS.formatted("letters")
                        + LETTERS.formatted("late");
        PlannedFlow f = new FlowPlanner(tEnv).plan(FlowScript.parse(flow)).get(0);
        assertThat(f.deadLetterTable()).isEqualTo("letters");
        assertThat(f.lateEventsTable()).isEqualTo("late");
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        flow
                                                                + "SET"
                                                                + " 'autocdc.f.tombstone-retention'"
                                                                + " = '1 d';\n")))
                .hasMessage(
                        "line 8, SET 'autocdc.f.tombstone-retention': comes after CREATE FLOW f"
                                + " (line 3), which takes its settings where it is declared; move"
                                + " the SET above the flow");
    }

    /** Two flows of one name would share operator uids and settings (issue 13, item 12). */
    @Test
    void twoFlowsOfOneNameAreRefused() {
        String script =
                SOURCE
                        + "CREATE OR REFRESH STREAMING TABLE t2;\n"
                        + "CREATE FLOW f AS AUTO CDC INTO t FROM src KEYS (id) SEQUENCE BY seq;\n"
                        + "CREATE FLOW F AS AUTO CDC INTO t2 FROM src KEYS (id) SEQUENCE BY seq;\n";
        assertThatThrownBy(() -> new FlowPlanner(tEnv).plan(FlowScript.parse(script)))
                .hasMessage(
                        "line 5, CREATE FLOW: a flow named F is declared on line 4 already; name"
                                + " each flow once (the name is its state's identity in savepoints"
                                + " and its settings' prefix)");
    }

    private List<PlannedFlow> planWithTarget(String target, String clauses) {
        environment();
        return new FlowPlanner(tEnv)
                .plan(
                        FlowScript.parse(
                                SOURCE.replace("CREATE OR REFRESH STREAMING TABLE t;\n", target)
                                        + "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src) "
                                        + clauses
                                        + ";"));
    }

    /** Issue 13, items 4 and 12: the target Flink resolves, not the DDL's text, is checked. */
    @Test
    void aDeclaredTargetMustHaveTheFlowsKeyAndColumns() {
        String scd2 = "KEYS (id) SEQUENCE BY seq COLUMNS (id, name) STORED AS SCD TYPE 2";
        assertThatThrownBy(
                        () ->
                                planWithTarget(
                                        "CREATE OR REFRESH STREAMING TABLE t (id INT, name STRING,"
                                                + " __START_AT BIGINT, __END_AT BIGINT, PRIMARY"
                                                + " KEY (id) NOT ENFORCED);\n",
                                        scd2))
                .hasMessage(
                        "line 2, PRIMARY KEY: target t declares PRIMARY KEY (id), but the primary"
                                + " key of an SCD2 target is (id, __START_AT), one row per"
                                + " version; declare PRIMARY KEY (id, __START_AT) NOT ENFORCED, or"
                                + " leave the key out");
        assertThatThrownBy(
                        () ->
                                planWithTarget(
                                        "CREATE OR REFRESH STREAMING TABLE t (id INT, name"
                                                + " STRING);\n",
                                        scd2))
                .hasMessage(
                        "line 2, CREATE OR REFRESH STREAMING TABLE: target t declares the columns"
                                + " [id, name], but the flow writes [id, name, __START_AT,"
                                + " __END_AT]; declare those, in that order, or leave the columns"
                                + " out");
        assertThatThrownBy(
                        () ->
                                planWithTarget(
                                        "CREATE OR REFRESH STREAMING TABLE t (id INT, name INT,"
                                                + " __START_AT BIGINT, __END_AT BIGINT);\n",
                                        scd2))
                .hasMessageContaining("declares name INT, but the flow writes STRING there");
        // spacing and case the old text match missed; a JDBC-like declared key reads the same
        PlannedFlow keyed =
                planWithTarget(
                                "CREATE OR REFRESH STREAMING TABLE t (id INT NOT NULL, name"
                                        + " STRING, __START_AT BIGINT NOT NULL, __END_AT BIGINT,"
                                        + " primary   key (__START_AT, id) not enforced);\n",
                                scd2)
                        .get(0);
        assertThat(keyed.spec().outputMode()).isEqualTo(OutputMode.UPSERT);
    }

    @Test
    void theChangelogFollowsTheSinkFlinkResolves() {
        String scd1 = "KEYS (id) SEQUENCE BY seq COLUMNS (id, name)";
        assertThat(
                        planWithTarget(
                                        "CREATE OR REFRESH STREAMING TABLE t WITH ('connector' ="
                                                + " 'print');\n",
                                        scd1)
                                .get(0)
                                .spec()
                                .outputMode())
                .as("print takes every kind, -U rows too: the flow retracts")
                .isEqualTo(OutputMode.RETRACT);
        assertThat(
                        planWithTarget(
                                        "CREATE OR REFRESH STREAMING TABLE t WITH ("
                                                + " 'connector'='upsert-kafka', 'topic' = 't',"
                                                + " 'properties.bootstrap.servers' = 'localhost:1',"
                                                + " 'key.format' = 'json', 'value.format' ="
                                                + " 'json');\n",
                                        scd1)
                                .get(0)
                                .spec()
                                .outputMode())
                .isEqualTo(OutputMode.UPSERT);
        assertThatThrownBy(
                        () ->
                                planWithTarget(
                                        "CREATE OR REFRESH STREAMING TABLE t WITH ('connector' ="
                                                + " 'filesystem', 'path' = '/tmp/x', 'format' ="
                                                + " 'json');\n",
                                        scd1))
                .hasMessageContaining("the connector of target t takes inserts only");
        assertThatThrownBy(
                        () ->
                                planWithTarget(
                                        "CREATE OR REFRESH STREAMING TABLE t WITH ('connector' ="
                                                + " 'upsert-kafka');\n",
                                        scd1))
                .hasMessageContaining(
                        "line 2, CREATE OR REFRESH STREAMING TABLE: Flink could not"
                                + " open target t for writing");
    }

    @Test
    void keysOfTypesThatCannotBeKeysAreRefusedOnce() {
        rejects(
                "KEYS (cols) SEQUENCE BY seq",
                "KEYS: cols is of type ARRAY<STRING>, which cannot be a key; use a column of a"
                        + " scalar type");
    }

    @Test
    void aSequenceColumnInTrackHistoryIsRefused() {
        rejects(
                "KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 2 TRACK HISTORY ON (name, seq)",
                "TRACK HISTORY ON: seq is a sequence column (SEQUENCE BY or SYSTEM SEQUENCE BY),"
                        + " which is never tracked");
    }

    @Test
    void letterTablesMustExistWithTheirSchema() {
        String script =
                SOURCE
                        + "CREATE TEMPORARY TABLE bad_letters (flow STRING, reason STRING) WITH"
                        + " ('connector' = 'blackhole');\n"
                        + "CREATE FLOW f AS AUTO CDC INTO t FROM src KEYS (id) SEQUENCE BY seq;\n";
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "SET 'autocdc.f.dead-letter-table' ="
                                                                + " 'nowhere';\n"
                                                                + script)))
                .hasMessageContaining(
                        "autocdc.f.dead-letter-table names nowhere, which is no table");
        environment();
        assertThatThrownBy(
                        () ->
                                new FlowPlanner(tEnv)
                                        .plan(
                                                FlowScript.parse(
                                                        "SET 'autocdc.f.late-events-table' ="
                                                                + " 'bad_letters';\n"
                                                                + script)))
                .hasMessageContaining(
                        "autocdc.f.late-events-table names bad_letters, whose columns are [flow,"
                                + " reason]; a letter table has the columns "
                                + LETTER_COLUMNS);
        // the columns as the message gives them declare a letter table (reserved words quoted)
        environment();
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE copied ("
                        + LETTER_COLUMNS
                        + ") WITH ('connector' = 'blackhole')");
        assertThat(
                        new FlowPlanner(tEnv)
                                .plan(
                                        FlowScript.parse(
                                                "SET 'autocdc.f.late-events-table' = 'copied';\n"
                                                        + script)))
                .hasSize(1);
    }

    private static final String LETTER_COLUMNS =
            "`flow` STRING, `source` STRING, `reason` STRING, `message` STRING, `payload` STRING,"
                    + " `topic` STRING, `partition` INT, `offset` BIGINT, `raw` BYTES";
}
