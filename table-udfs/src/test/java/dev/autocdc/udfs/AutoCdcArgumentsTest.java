package dev.autocdc.udfs;

import static dev.autocdc.udfs.AutoCdcTableFunctionTest.session;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.flink.runtime.EngineMetrics;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The arguments of {@code AUTO_CDC} that the flow clauses have too: a delete condition in Flink
 * SQL, compiled by the planner (a row it fails on is skipped), the ignore-null column lists as
 * DESCRIPTORs; and why there is no retention (Flink refuses {@code on_time} for the function).
 */
class AutoCdcArgumentsTest {

    /**
     * The delete condition as an expression on the raw feed (no computed column), and the two
     * ignore-null lists: the same tables as the flow clauses give.
     */
    @Test
    void aDeleteExpressionAndTheIgnoreNullLists() throws Exception {
        TableEnvironment t = session();
        Changelog users =
                Changelog.of(
                        t,
                        "SELECT * FROM AUTO_CDC(input => TABLE users_cdf PARTITION BY userId,"
                                + " sequence_by => DESCRIPTOR(sequenceNum), apply_as_deletes =>"
                                + " 'UPPER(operation) LIKE ''DEL%'' AND sequenceNum > 0',"
                                + " column_list => DESCRIPTOR(userId, name, city))");
        assertThat(users.table())
                .containsExactlyInAnyOrder(
                        "124/Raul/Oaxaca", "125/Mercedes/Guadalajara", "126/Lily/Cancun");
        t.executeSql(
                "CREATE TEMPORARY VIEW partial AS SELECT * FROM (VALUES (1, 'a', 'x', 1), (1,"
                        + " CAST(NULL AS STRING), CAST(NULL AS STRING), 2)) AS t(id, v1, v2, seq)");
        String call =
                "SELECT * FROM AUTO_CDC(input => TABLE partial PARTITION BY id, sequence_by =>"
                        + " DESCRIPTOR(seq), except_column_list => DESCRIPTOR(seq), ";
        assertThat(
                        Changelog.of(t, call + "ignore_null_updates_column_list => DESCRIPTOR(v1))")
                                .table())
                .as("a null keeps v1 and is written to v2")
                .containsExactly("1/a/null");
        assertThat(
                        Changelog.of(
                                        t,
                                        call
                                                + "ignore_null_updates_except_column_list =>"
                                                + " DESCRIPTOR(v1))")
                                .table())
                .as("a null is written to v1 and keeps v2")
                .containsExactly("1/null/x");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        call
                                                + "ignore_null_updates => TRUE,"
                                                + " ignore_null_updates_column_list =>"
                                                + " DESCRIPTOR(v1))"))
                .hasStackTraceContaining(
                        "AUTO_CDC: argument ignore_null_updates is given in two forms");
    }

    /**
     * Why the function has no retention: its timers would need {@code on_time}, which Flink 2.2
     * refuses for a process table function that emits updates. When a Flink release lifts this,
     * this test fails, and the retentions can run on the function's timers.
     */
    @Test
    void flinkRefusesOnTimeForAFunctionThatEmitsUpdates() {
        TableEnvironment t = session();
        t.executeSql(
                "CREATE TEMPORARY TABLE timed (id INT, v STRING, seq INT, ts TIMESTAMP(3),"
                        + " WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen',"
                        + " 'number-of-rows' = '10')");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        "SELECT * FROM AUTO_CDC(input => TABLE timed PARTITION BY"
                                                + " id, sequence_by => DESCRIPTOR(seq), on_time =>"
                                                + " DESCRIPTOR(ts))"))
                .hasStackTraceContaining(
                        "Time operations using the `on_time` argument are currently not supported"
                                + " for PTFs that consume or produce updates");
    }

    /**
     * A row whose delete condition fails (a CAST of a value that does not convert) is skipped and
     * counted as a dead letter, in the same counter as the engine's own (a null sequence).
     */
    @Test
    void aRowWhoseDeleteConditionFailsIsSkippedAndCounted() throws Exception {
        TableEnvironment t = session(FlowCounters.reportingTo());
        t.executeSql(
                "CREATE TEMPORARY VIEW coded AS SELECT * FROM (VALUES (1, 'a', '0', 1), (1, 'b',"
                        + " 'x', 2), (2, 'c', '0', 1), (2, 'c', '1', 2), (3, 'd', '0',"
                        + " CAST(NULL AS INT))) AS t(id, v, code, seq)");
        Changelog c =
                Changelog.of(
                        t,
                        "SELECT * FROM AUTO_CDC(input => TABLE coded PARTITION BY id, sequence_by"
                            + " => DESCRIPTOR(seq), apply_as_deletes => 'CAST(code AS INT) = 1',"
                            + " column_list => DESCRIPTOR(id, v))");
        // key 1's second row cannot be read as a delete or not: a dead letter; key 2 is deleted;
        // key 3's row has no sequence: the engine's dead letter
        assertThat(c.table()).containsExactly("1/a");
        assertThat(FlowCounters.sum("auto_cdc", EngineMetrics.DEAD_LETTERS)).isEqualTo(2);
        assertThat(FlowCounters.sum("auto_cdc", EngineMetrics.INPUT_ROWS)).isEqualTo(5);
    }
}
