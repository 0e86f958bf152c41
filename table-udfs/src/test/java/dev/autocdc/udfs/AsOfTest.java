package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * AS_OF over the employees walkthrough's bitemporal table (semantics §12): the three as-of
 * questions of the reference on the final table, the answer over a changelog that revises history,
 * and the planning errors that name the argument.
 */
class AsOfTest {
    /** The employees table after step 5, as the reference prints it. */
    static final String EMPLOYEES_AFTER_STEP5 =
            "SELECT * FROM (VALUES (1, 'Chris', 'Owner', DATE '2025-01-01', CAST(NULL AS DATE),"
                + " TIMESTAMP '2025-01-02 09:00:00', TIMESTAMP '2025-03-01 09:00:00'), (1, 'Chris',"
                + " 'Owner', DATE '2025-01-01', DATE '2025-03-01', TIMESTAMP '2025-03-01 09:00:00',"
                + " TIMESTAMP '2025-03-15 09:00:00'), (1, 'Chris', 'Owner', DATE '2025-01-01', DATE"
                + " '2025-02-01', TIMESTAMP '2025-03-15 09:00:00', CAST(NULL AS TIMESTAMP)), (1,"
                + " 'Chris', 'Team Lead', DATE '2025-02-01', DATE '2025-03-01', TIMESTAMP"
                + " '2025-03-15 09:00:00', CAST(NULL AS TIMESTAMP)), (1, 'Chris', 'Manager', DATE"
                + " '2025-03-01', CAST(NULL AS DATE), TIMESTAMP '2025-03-01 09:00:00', CAST(NULL AS"
                + " TIMESTAMP)), (2, 'Dana', 'Engineer', DATE '2025-01-01', CAST(NULL AS DATE),"
                + " TIMESTAMP '2025-01-02 09:00:00', TIMESTAMP '2025-04-01 09:00:00'), (2, 'Dana',"
                + " 'Analyst', DATE '2025-01-01', CAST(NULL AS DATE), TIMESTAMP '2025-04-01"
                + " 09:00:00', CAST(NULL AS TIMESTAMP))) AS t(employeeId, name, role, __START_AT,"
                + " __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT)";

    /**
     * A streaming environment (Flink runs PTFs only in streaming mode) over the bounded final
     * table.
     */
    private static TableEnvironment session() {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        t.executeSql("CREATE FUNCTION AS_OF AS 'dev.autocdc.udfs.AsOf'");
        t.executeSql("CREATE TEMPORARY VIEW employees_bitemporal AS " + EMPLOYEES_AFTER_STEP5);
        return t;
    }

    @Test
    void answersTheReferencesAsOfQueriesOnTheFinalTable() throws Exception {
        TableEnvironment t = session();
        // the current state, as the system currently believes it: Manager and Analyst
        assertThat(
                        names(
                                t,
                                "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                                        + " business_time => '2026-11-30')"))
                .containsExactlyInAnyOrder("Chris/Manager", "Dana/Analyst");
        // the business-time history as the system currently believes it
        assertThat(
                        rows(
                                t,
                                "SELECT name, role, __START_AT, __END_AT FROM AS_OF(input => TABLE"
                                        + " employees_bitemporal)"))
                .containsExactlyInAnyOrder(
                        "Chris/Owner/2025-01-01/2025-02-01",
                        "Chris/Team Lead/2025-02-01/2025-03-01",
                        "Chris/Manager/2025-03-01/null",
                        "Dana/Analyst/2025-01-01/null");
        // what did we believe on 2025-03-10 about 2025-02-15
        assertThat(
                        names(
                                t,
                                "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                                    + " business_time => '2025-02-15', believed_at => '2025-03-10"
                                    + " 00:00:00')"))
                .containsExactlyInAnyOrder("Chris/Owner", "Dana/Engineer");
        // what do we believe today about 2025-02-15: without believed_at, the current belief
        assertThat(
                        names(
                                t,
                                "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                                        + " business_time => '2025-02-15')"))
                .containsExactlyInAnyOrder("Chris/Team Lead", "Dana/Analyst");
        // the same, with today's date spelled out
        assertThat(
                        names(
                                t,
                                "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                                    + " business_time => '2025-02-15', believed_at => '2026-11-30"
                                    + " 00:00:00')"))
                .containsExactlyInAnyOrder("Chris/Team Lead", "Dana/Analyst");
        // what did we believe on 2025-03-10 about 2025-03-05: Manager had been recorded on 03-01
        assertThat(
                        names(
                                t,
                                "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                                    + " business_time => '2025-03-05', believed_at => '2025-03-10"
                                    + " 00:00:00')"))
                .containsExactlyInAnyOrder("Chris/Manager", "Dana/Engineer");
    }

    @Test
    void withoutASystemTimeItIsTheType2Question() throws Exception {
        TableEnvironment t = session();
        t.executeSql(
                "CREATE TEMPORARY VIEW users_history AS SELECT * FROM (VALUES (123, 'Isabel',"
                    + " 'Monterrey', 1, 5), (123, 'Isabel', 'Chihuahua', 5, 6), (124, 'Raul',"
                    + " 'Oaxaca', 1, CAST(NULL AS INT)), (125, 'Mercedes', 'Tijuana', 2, 5), (125,"
                    + " 'Mercedes', 'Mexicali', 5, 6), (125, 'Mercedes', 'Guadalajara', 6,"
                    + " CAST(NULL AS INT)), (126, 'Lily', 'Cancun', 2, CAST(NULL AS INT))) AS"
                    + " t(userId, name, city, __START_AT, __END_AT)");
        assertThat(
                        names(
                                t,
                                "SELECT name, city FROM AS_OF(input => TABLE users_history,"
                                        + " business_time => '5')"))
                .containsExactlyInAnyOrder(
                        "Isabel/Chihuahua", "Raul/Oaxaca", "Mercedes/Mexicali", "Lily/Cancun");
    }

    @Test
    void overAChangelogTheAnswerFollowsTheRevisedHistory() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.executeSql("CREATE FUNCTION AS_OF AS 'dev.autocdc.udfs.AsOf'");
        LocalDateTime jan2 = LocalDateTime.parse("2025-01-02T09:00:00");
        LocalDateTime mar1 = LocalDateTime.parse("2025-03-01T09:00:00");
        LocalDateTime mar15 = LocalDateTime.parse("2025-03-15T09:00:00");
        LocalDate jan1 = LocalDate.parse("2025-01-01");
        LocalDate feb1 = LocalDate.parse("2025-02-01");
        LocalDate march1 = LocalDate.parse("2025-03-01");
        // Chris's rows as the engine emits them in retract mode through steps 2-4 of the
        // walkthrough
        DataStream<Row> changes =
                env.fromData(
                        Types.ROW_NAMED(
                                new String[] {
                                    "employeeId",
                                    "role",
                                    "__START_AT",
                                    "__END_AT",
                                    "__SYSTEM_START_AT",
                                    "__SYSTEM_END_AT"
                                },
                                Types.INT,
                                Types.STRING,
                                Types.LOCAL_DATE,
                                Types.LOCAL_DATE,
                                Types.LOCAL_DATE_TIME,
                                Types.LOCAL_DATE_TIME),
                        Row.ofKind(RowKind.INSERT, 1, "Owner", jan1, null, jan2, null),
                        // step 3: Owner closes at 2025-03-01 09:00 in system time; Owner until
                        // 03-01 and Manager believed from then
                        Row.ofKind(RowKind.UPDATE_BEFORE, 1, "Owner", jan1, null, jan2, null),
                        Row.ofKind(RowKind.UPDATE_AFTER, 1, "Owner", jan1, null, jan2, mar1),
                        Row.ofKind(RowKind.INSERT, 1, "Owner", jan1, march1, mar1, null),
                        Row.ofKind(RowKind.INSERT, 1, "Manager", march1, null, mar1, null),
                        // step 4 (late Team Lead from 02-01): Owner until 03-01 closes at 03-15;
                        // Owner until 02-01 and Team Lead added
                        Row.ofKind(RowKind.UPDATE_BEFORE, 1, "Owner", jan1, march1, mar1, null),
                        Row.ofKind(RowKind.UPDATE_AFTER, 1, "Owner", jan1, march1, mar1, mar15),
                        Row.ofKind(RowKind.INSERT, 1, "Owner", jan1, feb1, mar15, null),
                        Row.ofKind(RowKind.INSERT, 1, "Team Lead", feb1, march1, mar15, null));
        t.createTemporaryView(
                "chris",
                t.fromChangelogStream(
                        changes,
                        Schema.newBuilder()
                                .column("employeeId", DataTypes.INT())
                                .column("role", DataTypes.STRING())
                                .column("__START_AT", DataTypes.DATE())
                                .column("__END_AT", DataTypes.DATE())
                                .column("__SYSTEM_START_AT", DataTypes.TIMESTAMP(0))
                                .column("__SYSTEM_END_AT", DataTypes.TIMESTAMP(0))
                                .build(),
                        ChangelogMode.all()));
        List<Row> out = new ArrayList<>();
        try (CloseableIterator<Row> it =
                t.executeSql(
                                "SELECT role FROM AS_OF(input => TABLE chris,"
                                        + " business_time => '2025-02-15')")
                        .collect()) {
            it.forEachRemaining(out::add);
        }
        // materialized: only Team Lead is believed now for 2025-02-15; Owner was in the answer,
        // then retracted
        Map<String, Integer> table = new HashMap<>();
        int retractions = 0;
        for (Row r : out) {
            int delta =
                    r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER ? 1 : -1;
            retractions += delta < 0 ? 1 : 0;
            table.merge((String) r.getField(0), delta, Integer::sum);
        }
        table.values().removeIf(n -> n == 0);
        assertThat(table).isEqualTo(Map.of("Team Lead", 1));
        assertThat(retractions)
                .as("Owner left the answer when history was revised: " + out)
                .isGreaterThan(0);
    }

    @Test
    void aTimeOfTheWrongTypeFailsAtPlanningNamingTheArgument() {
        TableEnvironment t = session();
        assertThatThrownBy(
                        () ->
                                t.executeSql(
                                                "SELECT * FROM AS_OF(input => TABLE"
                                                    + " employees_bitemporal, business_time => 'Feb"
                                                    + " 15')")
                                        .collect()
                                        .close())
                .hasStackTraceContaining(
                        "AS_OF: argument business_time is compared with __START_AT: 'Feb 15' does"
                                + " not read as DATE");
        assertThatThrownBy(
                        () ->
                                t.executeSql(
                                                "SELECT * FROM AS_OF(input => TABLE"
                                                    + " employees_bitemporal, business_time =>"
                                                    + " '2025-02-15', believed_at => 'yesterday')")
                                        .collect()
                                        .close())
                .hasStackTraceContaining(
                        "AS_OF: argument believed_at is compared with __SYSTEM_START_AT");
        t.executeSql("CREATE TEMPORARY VIEW plain AS SELECT * FROM (VALUES (1, 'a')) AS p(id, v)");
        assertThatThrownBy(
                        () ->
                                t.executeSql(
                                                "SELECT * FROM AS_OF(input => TABLE plain,"
                                                        + " business_time => '1')")
                                        .collect()
                                        .close())
                .hasStackTraceContaining(
                        "AS_OF: argument business_time is compared with __START_AT / __END_AT,"
                                + " which the input lacks");
        t.executeSql(
                "CREATE TEMPORARY VIEW users_history AS SELECT * FROM (VALUES (123, 'Isabel', 1,"
                        + " 5)) AS u(userId, name, __START_AT, __END_AT)");
        assertThatThrownBy(
                        () ->
                                t.executeSql(
                                                "SELECT * FROM AS_OF(input => TABLE users_history,"
                                                        + " business_time => '2', believed_at =>"
                                                        + " '2025-03-10 00:00:00')")
                                        .collect()
                                        .close())
                .hasStackTraceContaining(
                        "AS_OF: argument believed_at is compared with __SYSTEM_START_AT /"
                                + " __SYSTEM_END_AT, which the input lacks");
    }

    @Test
    void believedAtAndValidAtAnswerInAWhereClause() throws Exception {
        TableEnvironment t = session();
        t.executeSql("CREATE FUNCTION VALID_AT AS 'dev.autocdc.udfs.ValidAt'");
        t.executeSql("CREATE FUNCTION BELIEVED_AT AS 'dev.autocdc.udfs.BelievedAt'");
        // the example of docs/sql-functions.md
        assertThat(names(t, DocSessions.statements(PointInTimeJoinTest.DOCS, "valid-at").get(0)))
                .containsExactlyInAnyOrder("1/Owner", "2/Engineer");
        // a DATE column at a TIMESTAMP: the dates read as midnight
        assertThat(
                        names(
                                t,
                                "SELECT name, role FROM employees_bitemporal WHERE"
                                        + " VALID_AT(__START_AT, __END_AT, TIMESTAMP '2025-02-15"
                                        + " 12:00:00') AND BELIEVED_AT(__SYSTEM_START_AT,"
                                        + " __SYSTEM_END_AT, TIMESTAMP '2025-03-10 00:00:00')"))
                .containsExactlyInAnyOrder("Chris/Owner", "Dana/Engineer");
        assertThatThrownBy(
                        () ->
                                t.executeSql(
                                                "SELECT * FROM employees_bitemporal WHERE"
                                                    + " VALID_AT(__START_AT, __END_AT, 20250215)")
                                        .collect()
                                        .close())
                .hasStackTraceContaining(
                        "VALID_AT: arguments start, end and at must have one type, but are DATE NOT"
                            + " NULL, DATE and INT NOT NULL: cast argument at to the columns' type,"
                            + " e.g. CAST(x AS DATE)");
        // a TIMESTAMP column at a DATE would compare as DATEs (Flink's implicit cast): refused
        assertThatThrownBy(
                        () ->
                                t.executeSql(
                                                "SELECT * FROM employees_bitemporal WHERE"
                                                        + " BELIEVED_AT(__SYSTEM_START_AT,"
                                                        + " __SYSTEM_END_AT, DATE '2025-03-01')")
                                        .collect()
                                        .close())
                .hasStackTraceContaining(
                        "BELIEVED_AT: argument start is TIMESTAMP(0) NOT NULL and another is a"
                                + " DATE: comparing as DATE would drop the time of day");
        assertThatThrownBy(
                        () ->
                                t.executeSql(
                                                "SELECT * FROM employees_bitemporal WHERE"
                                                        + " BELIEVED_AT(__SYSTEM_START_AT,"
                                                        + " __SYSTEM_END_AT, TRUE)")
                                        .collect()
                                        .close())
                .hasStackTraceContaining(
                        "BELIEVED_AT: argument at is BOOLEAN NOT NULL; use numbers, DATE");
        // an INT sequence compared with a BIGINT: both read as BIGINT
        assertThat(
                        names(
                                t,
                                "SELECT name, role FROM employees_bitemporal WHERE VALID_AT(1,"
                                    + " CAST(NULL AS INT), CAST(2 AS BIGINT)) AND employeeId = 2"
                                    + " AND BELIEVED_AT(__SYSTEM_START_AT, __SYSTEM_END_AT,"
                                    + " TIMESTAMP '2025-03-10 00:00:00')"))
                .containsExactly("Dana/Engineer");
    }

    static List<String> rows(TableEnvironment t, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(
                    r -> {
                        StringBuilder b = new StringBuilder();
                        for (int i = 0; i < r.getArity(); i++) {
                            b.append(i == 0 ? "" : "/").append(r.getField(i));
                        }
                        out.add(b.toString());
                    });
        }
        return out;
    }

    static List<String> names(TableEnvironment t, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(r.getField(0) + "/" + r.getField(1)));
        }
        return out;
    }
}
