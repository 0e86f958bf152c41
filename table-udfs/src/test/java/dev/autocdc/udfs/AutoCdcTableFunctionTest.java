package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * AUTO_CDC from SQL on the references' walkthroughs: the materialized changelog equals the tables
 * the references print (literals, semantics §12), every retraction carries a present row, the
 * output feeds AS_OF, invalid events are skipped without failing the query, and bad arguments fail
 * at planning time naming the argument.
 */
class AutoCdcTableFunctionTest {

    /**
     * The users feed of semantics §12 in its listed arrival order, with the delete flag computed in
     * SQL.
     */
    static final String USERS =
            "CREATE TEMPORARY VIEW users_cdf AS SELECT *, operation = 'DELETE' AS is_delete FROM"
                + " (VALUES (124, 'Raul', 'Oaxaca', 'INSERT', 1), (123, 'Isabel', 'Monterrey',"
                + " 'INSERT', 1), (125, 'Mercedes', 'Tijuana', 'INSERT', 2), (126, 'Lily',"
                + " 'Cancun', 'INSERT', 2), (123, CAST(NULL AS STRING), CAST(NULL AS STRING),"
                + " 'DELETE', 6), (125, 'Mercedes', 'Guadalajara', 'UPDATE', 6), (125, 'Mercedes',"
                + " 'Mexicali', 'UPDATE', 5), (123, 'Isabel', 'Chihuahua', 'UPDATE', 5)) AS"
                + " t(userId, name, city, operation, sequenceNum)";

    /** The employees feed of the bitemporal walkthrough, steps 1, 3, 4 and 5 in order. */
    static final String EMPLOYEES =
            "CREATE TEMPORARY VIEW employees_cdf AS SELECT *, operation = 'DELETE' AS is_delete"
                + " FROM (VALUES (1, 'Chris', 'Owner', 'INSERT', DATE '2025-01-01', TIMESTAMP"
                + " '2025-01-02 09:00:00'), (2, 'Dana', 'Engineer', 'INSERT', DATE '2025-01-01',"
                + " TIMESTAMP '2025-01-02 09:00:00'), (1, 'Chris', 'Manager', 'UPDATE', DATE"
                + " '2025-03-01', TIMESTAMP '2025-03-01 09:00:00'), (1, 'Chris', 'Team Lead',"
                + " 'UPDATE', DATE '2025-02-01', TIMESTAMP '2025-03-15 09:00:00'), (2, 'Dana',"
                + " 'Analyst', 'UPDATE', DATE '2025-01-01', TIMESTAMP '2025-04-01 09:00:00')) AS"
                + " t(employeeId, name, role, operation, effectiveDate, recordedAt)";

    static final String EMPLOYEES_BITEMPORAL =
            "CREATE TEMPORARY VIEW employees_bitemporal AS SELECT * FROM AUTO_CDC(input => TABLE"
                + " employees_cdf PARTITION BY employeeId, sequence_by =>"
                + " DESCRIPTOR(effectiveDate), system_sequence_by => DESCRIPTOR(recordedAt),"
                + " stored_as => 'BITEMPORAL', apply_as_deletes => 'is_delete', except_column_list"
                + " => DESCRIPTOR(operation, is_delete, effectiveDate, recordedAt), uid =>"
                + " 'employees')";

    static TableEnvironment session(Configuration conf) {
        TableEnvironment t =
                TableEnvironment.create(
                        EnvironmentSettings.newInstance()
                                .inStreamingMode()
                                .withConfiguration(conf)
                                .build());
        t.getConfig().set("parallelism.default", "1");
        t.executeSql("CREATE FUNCTION AUTO_CDC AS 'dev.autocdc.udfs.AutoCdcTableFunction'");
        t.executeSql(
                "CREATE FUNCTION AUTO_CDC_UPSERT AS 'dev.autocdc.udfs.AutoCdcUpsertTableFunction'");
        t.executeSql("CREATE FUNCTION AS_OF AS 'dev.autocdc.udfs.AsOf'");
        t.executeSql(USERS);
        t.executeSql(EMPLOYEES);
        return t;
    }

    static TableEnvironment session() {
        return session(new Configuration());
    }

    @Test
    void usersAsScdType1() throws Exception {
        Changelog c =
                Changelog.of(
                        session(),
                        "SELECT * FROM AUTO_CDC(input => TABLE users_cdf PARTITION BY userId,"
                                + " sequence_by => DESCRIPTOR(sequenceNum), apply_as_deletes =>"
                                + " 'is_delete', except_column_list => DESCRIPTOR(operation,"
                                + " sequenceNum, is_delete))");
        assertThat(c.table())
                .containsExactlyInAnyOrder(
                        "124/Raul/Oaxaca", "125/Mercedes/Guadalajara", "126/Lily/Cancun");
    }

    @Test
    void usersAsScdType2OnRocksDb() throws Exception {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", "rocksdb");
        Changelog c =
                Changelog.of(
                        session(conf),
                        "SELECT * FROM AUTO_CDC(input => TABLE users_cdf PARTITION BY userId,"
                            + " sequence_by => DESCRIPTOR(sequenceNum), stored_as => 'SCD TYPE 2',"
                            + " apply_as_deletes => 'is_delete', except_column_list =>"
                            + " DESCRIPTOR(operation, sequenceNum, is_delete), uid =>"
                            + " 'users-scd2')");
        assertThat(c.table())
                .containsExactlyInAnyOrder(
                        "123/Isabel/Monterrey/1/5",
                        "123/Isabel/Chihuahua/5/6",
                        "124/Raul/Oaxaca/1/null",
                        "125/Mercedes/Tijuana/2/5",
                        "125/Mercedes/Mexicali/5/6",
                        "125/Mercedes/Guadalajara/6/null",
                        "126/Lily/Cancun/2/null");
        assertThat(c.changes)
                .as("late events revise history: rows are retracted")
                .anyMatch(r -> r.getKind().toByteValue() == 1);
    }

    @Test
    void employeesAsBitemporalAndAskedAsOf() throws Exception {
        TableEnvironment t = session();
        t.executeSql(EMPLOYEES_BITEMPORAL);
        assertThat(Changelog.of(t, "SELECT * FROM employees_bitemporal").table())
                .containsExactlyInAnyOrder(
                        "1/Chris/Owner/2025-01-01/null/2025-01-02T09:00/2025-03-01T09:00",
                        "1/Chris/Owner/2025-01-01/2025-03-01/2025-03-01T09:00/2025-03-15T09:00",
                        "1/Chris/Owner/2025-01-01/2025-02-01/2025-03-15T09:00/null",
                        "1/Chris/Team Lead/2025-02-01/2025-03-01/2025-03-15T09:00/null",
                        "1/Chris/Manager/2025-03-01/null/2025-03-01T09:00/null",
                        "2/Dana/Engineer/2025-01-01/null/2025-01-02T09:00/2025-04-01T09:00",
                        "2/Dana/Analyst/2025-01-01/null/2025-04-01T09:00/null");
        // AS_OF over AUTO_CDC's changelog: the answers of the reference, though history was revised
        // on the way
        assertThat(
                        Changelog.of(
                                        t,
                                        "SELECT name, role FROM AS_OF(input => TABLE"
                                                + " employees_bitemporal, business_time =>"
                                                + " '2025-02-15', believed_at => '2025-03-10"
                                                + " 00:00:00')")
                                .table())
                .containsExactlyInAnyOrder("Chris/Owner", "Dana/Engineer");
        assertThat(
                        Changelog.of(
                                        t,
                                        "SELECT name, role FROM AS_OF(input => TABLE"
                                                + " employees_bitemporal, business_time =>"
                                                + " '2025-02-15')")
                                .table())
                .containsExactlyInAnyOrder("Chris/Team Lead", "Dana/Analyst");
        assertThat(
                        Changelog.of(
                                        t,
                                        "SELECT name, role FROM AS_OF(input => TABLE"
                                                + " employees_bitemporal, business_time =>"
                                                + " '2026-11-30')")
                                .table())
                .containsExactlyInAnyOrder("Chris/Manager", "Dana/Analyst");
    }

    @Test
    void invalidEventsAreSkippedAndTheQueryGoesOn() throws Exception {
        TableEnvironment t = session();
        t.executeSql(
                "CREATE TEMPORARY VIEW bad AS SELECT * FROM (VALUES (1, 'a', 1), (1, 'b', CAST(NULL"
                        + " AS INT)), (CAST(NULL AS INT), 'c', 3), (1, 'd', 2)) AS t(id, v, seq)");
        Changelog c =
                Changelog.of(
                        t,
                        "SELECT * FROM AUTO_CDC(input => TABLE bad PARTITION BY id, sequence_by =>"
                                + " DESCRIPTOR(seq), except_column_list => DESCRIPTOR(seq))");
        // the null sequence and the null key are dead letters (counted, logged); the others apply
        assertThat(c.table()).containsExactly("1/d");
    }

    @Test
    void typeOneTakesUpsertsWhereTheSinkDoes() {
        TableEnvironment t = session();
        t.executeSql(
                "CREATE TABLE users_current (userId INT, name STRING, city STRING, PRIMARY KEY"
                        + " (userId) NOT ENFORCED) WITH ('connector' = 'blackhole')");
        String plan =
                t.explainSql(
                        "INSERT INTO users_current SELECT * FROM AUTO_CDC_UPSERT(input => TABLE"
                                + " users_cdf PARTITION BY userId, sequence_by =>"
                                + " DESCRIPTOR(sequenceNum), apply_as_deletes => 'is_delete',"
                                + " except_column_list => DESCRIPTOR(operation, sequenceNum,"
                                + " is_delete))",
                        ExplainDetail.CHANGELOG_MODE);
        assertThat(plan).containsPattern("ProcessTableFunction\\(.*changelogMode=\\[I,UA,D\\]");
        String retract =
                t.explainSql(
                        "INSERT INTO users_current SELECT * FROM AUTO_CDC(input => TABLE users_cdf"
                                + " PARTITION BY userId, sequence_by => DESCRIPTOR(sequenceNum),"
                                + " apply_as_deletes => 'is_delete', except_column_list =>"
                                + " DESCRIPTOR(operation, sequenceNum, is_delete))",
                        ExplainDetail.CHANGELOG_MODE);
        assertThat(retract)
                .containsPattern("ProcessTableFunction\\(.*changelogMode=\\[I,UB,UA,D\\]");
    }

    @Test
    void stateTtlForgetsTypeOneKeysButNeverTearsAHistory() throws Exception {
        // one key, two events 2.5 s apart, with a state TTL of 1 s for the session
        assertThat(twoEventsAcrossTheTtl("SCD TYPE 1"))
                .containsExactly(
                        "+I 1/x",
                        "+I 1/y"); // the key was forgotten: the second event inserts again
        assertThat(twoEventsAcrossTheTtl("SCD TYPE 2"))
                .containsExactly(
                        "+I 1/x/1/null",
                        "-U 1/x/1/null",
                        "+U 1/x/1/2",
                        "+I 1/y/2/null"); // the history is whole
    }

    private static List<String> twoEventsAcrossTheTtl(String storedAs) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().set("table.exec.state.ttl", "1 s");
        t.executeSql("CREATE FUNCTION AUTO_CDC AS 'dev.autocdc.udfs.AutoCdcTableFunction'");
        TypeInformation<Row> type =
                Types.ROW_NAMED(
                        new String[] {"id", "v", "seq"}, Types.INT, Types.STRING, Types.INT);
        DataStream<Row> events =
                env.fromData(List.of(Row.of(1, "x", 1), Row.of(1, "y", 2)), type)
                        .map(AutoCdcTableFunctionTest::pauseBeforeTheSecond)
                        .returns(type);
        t.createTemporaryView("events", events);
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it =
                t.executeSql(
                                "SELECT * FROM AUTO_CDC(input => TABLE events PARTITION BY id,"
                                        + " sequence_by => DESCRIPTOR(seq), stored_as => '"
                                        + storedAs
                                        + "', except_column_list => DESCRIPTOR(seq))")
                        .collect()) {
            it.forEachRemaining(
                    r -> out.add(r.getKind().shortString() + " " + Changelog.fields(r)));
        }
        return out;
    }

    private static Row pauseBeforeTheSecond(Row r) throws InterruptedException {
        if ((Integer) r.getField(2) == 2) {
            Thread.sleep(2500);
        }
        return r;
    }

    @Test
    void columnsNamedLikeTheEnginesControlColumnsAreData() throws Exception {
        TableEnvironment t = session();
        // __seq and __delete would be the engine's own sequence and delete flag if names decided
        t.executeSql(
                "CREATE TEMPORARY VIEW odd AS SELECT * FROM (VALUES (1, 9, TRUE, 1), (1, 1, TRUE,"
                        + " 2)) AS t(id, __seq, __delete, seq)");
        Changelog c =
                Changelog.of(
                        t,
                        "SELECT * FROM AUTO_CDC(input => TABLE odd PARTITION BY id, sequence_by =>"
                                + " DESCRIPTOR(seq))");
        assertThat(c.table()).containsExactly("1/1/true/2");
    }

    @Test
    void badArgumentsFailAtPlanningNamingTheArgument() {
        TableEnvironment t = session();
        String call = "SELECT * FROM AUTO_CDC(input => TABLE users_cdf PARTITION BY userId";
        assertThatThrownBy(() -> t.explainSql(call + ", stored_as => 'SCD TYPE 2')"))
                .hasStackTraceContaining("AUTO_CDC: argument sequence_by is required");
        assertThatThrownBy(() -> t.explainSql(call + ", sequence_by => DESCRIPTOR(seq))"))
                .hasStackTraceContaining(
                        "AUTO_CDC: argument sequence_by names seq, which is not a column of the"
                                + " input");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        call
                                                + ", sequence_by => DESCRIPTOR(sequenceNum),"
                                                + " stored_as => 'SCD 3')"))
                .hasStackTraceContaining(
                        "AUTO_CDC: argument stored_as is 'SCD 3'; use 'SCD TYPE 1' (the default)");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        call
                                                + ", sequence_by => DESCRIPTOR(sequenceNum),"
                                                + " apply_as_deletes => 'operation')"))
                .hasStackTraceContaining(
                        "AUTO_CDC: argument apply_as_deletes 'operation' is not a BOOLEAN condition"
                                + " on the input's columns [userId, name, city, operation,"
                                + " sequenceNum, is_delete]: Mismatch between expression type"
                                + " 'CHAR(6) NOT NULL' and expected type 'BOOLEAN'. Write it as"
                                + " in a WHERE clause");
        // text where a DESCRIPTOR is taken: Calcite finds no signature before the function is
        // asked, and lists the types it takes (COLUMN_LIST); docs/sql-functions.md shows it
        assertThatThrownBy(() -> t.explainSql(call + ", sequence_by => 'sequenceNum')"))
                .hasMessageContaining("No match found for function signature AUTO_CDC(")
                .hasMessageContaining("<COLUMN_LIST>");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        call
                                                + ", sequence_by => DESCRIPTOR(sequenceNum),"
                                                + " system_sequence_by =>"
                                                + " DESCRIPTOR(sequenceNum))"))
                .hasStackTraceContaining(
                        "AUTO_CDC: argument system_sequence_by applies to stored_as => 'BITEMPORAL'"
                                + " only");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        call
                                                + ", sequence_by => DESCRIPTOR(sequenceNum),"
                                                + " stored_as => 'SCD TYPE 2', except_column_list"
                                                + " => DESCRIPTOR(userId))"))
                .hasStackTraceContaining(
                        "AUTO_CDC: argument except_column_list names key column userId");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        call
                                                + ", sequence_by => DESCRIPTOR(sequenceNum),"
                                                + " track_history_column_list =>"
                                                + " DESCRIPTOR(city))"))
                .hasStackTraceContaining("AUTO_CDC: argument track_history_column_list");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        "SELECT * FROM AUTO_CDC_UPSERT(input => TABLE users_cdf"
                                                + " PARTITION BY userId, sequence_by =>"
                                                + " DESCRIPTOR(sequenceNum), stored_as => 'SCD TYPE"
                                                + " 2')"))
                .hasStackTraceContaining(
                        "AUTO_CDC_UPSERT: argument stored_as must be 'SCD TYPE 1'");
        assertThatThrownBy(
                        () ->
                                t.explainSql(
                                        "SELECT * FROM AUTO_CDC(input => TABLE users_cdf,"
                                                + " sequence_by => DESCRIPTOR(sequenceNum))"))
                .hasStackTraceContaining("PARTITION BY");
    }
}
