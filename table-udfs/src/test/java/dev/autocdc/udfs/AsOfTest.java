package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * AS_OF over the employees walkthrough's bitemporal table (SPEC §12): the three as-of questions of the
 * reference on the final table, the answer over a changelog that revises history, and the planning
 * errors that name the argument.
 */
class AsOfTest {
    /** The employees table after step 5, as the reference prints it. */
    static final String EMPLOYEES_AFTER_STEP5 = "SELECT * FROM (VALUES"
            + " (1, 'Chris', 'Owner', DATE '2025-01-01', CAST(NULL AS DATE), TIMESTAMP '2025-01-02 09:00:00', TIMESTAMP '2025-03-01 09:00:00'),"
            + " (1, 'Chris', 'Owner', DATE '2025-01-01', DATE '2025-03-01', TIMESTAMP '2025-03-01 09:00:00', TIMESTAMP '2025-03-15 09:00:00'),"
            + " (1, 'Chris', 'Owner', DATE '2025-01-01', DATE '2025-02-01', TIMESTAMP '2025-03-15 09:00:00', CAST(NULL AS TIMESTAMP)),"
            + " (1, 'Chris', 'Team Lead', DATE '2025-02-01', DATE '2025-03-01', TIMESTAMP '2025-03-15 09:00:00', CAST(NULL AS TIMESTAMP)),"
            + " (1, 'Chris', 'Manager', DATE '2025-03-01', CAST(NULL AS DATE), TIMESTAMP '2025-03-01 09:00:00', CAST(NULL AS TIMESTAMP)),"
            + " (2, 'Dana', 'Engineer', DATE '2025-01-01', CAST(NULL AS DATE), TIMESTAMP '2025-01-02 09:00:00', TIMESTAMP '2025-04-01 09:00:00'),"
            + " (2, 'Dana', 'Analyst', DATE '2025-01-01', CAST(NULL AS DATE), TIMESTAMP '2025-04-01 09:00:00', CAST(NULL AS TIMESTAMP)))"
            + " AS t(employeeId, name, role, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT)";

    private static TableEnvironment batch() {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.executeSql("CREATE FUNCTION AS_OF AS 'dev.autocdc.udfs.AsOf'");
        t.executeSql("CREATE TEMPORARY VIEW employees_bitemporal AS " + EMPLOYEES_AFTER_STEP5);
        return t;
    }

    @Test
    void answersTheReferencesAsOfQueriesOnTheFinalTable() throws Exception {
        TableEnvironment t = batch();
        // what did we believe on 2025-03-10 about 2025-02-15
        assertThat(names(t, "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                + " business_time => DATE '2025-02-15', system_time => TIMESTAMP '2025-03-10 00:00:00')"))
                .containsExactlyInAnyOrder("Chris/Owner", "Dana/Engineer");
        // what do we believe today about 2025-02-15
        assertThat(names(t, "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                + " business_time => DATE '2025-02-15', system_time => CAST(CURRENT_TIMESTAMP AS TIMESTAMP(0)))"))
                .containsExactlyInAnyOrder("Chris/Team Lead", "Dana/Analyst");
        // the business-time history as believed now, at each version's start: current belief only
        assertThat(names(t, "SELECT name, role FROM AS_OF(input => TABLE employees_bitemporal,"
                + " business_time => DATE '2025-03-02', system_time => TIMESTAMP '2100-01-01 00:00:00')"))
                .containsExactlyInAnyOrder("Chris/Manager", "Dana/Analyst");
    }

    @Test
    void withoutASystemTimeItIsTheType2Question() throws Exception {
        TableEnvironment t = batch();
        t.executeSql("CREATE TEMPORARY VIEW users_history AS SELECT * FROM (VALUES"
                + " (123, 'Isabel', 'Monterrey', 1, 5), (123, 'Isabel', 'Chihuahua', 5, 6),"
                + " (124, 'Raul', 'Oaxaca', 1, CAST(NULL AS INT)), (125, 'Mercedes', 'Tijuana', 2, 5),"
                + " (125, 'Mercedes', 'Mexicali', 5, 6), (125, 'Mercedes', 'Guadalajara', 6, CAST(NULL AS INT)),"
                + " (126, 'Lily', 'Cancun', 2, CAST(NULL AS INT))) AS t(userId, name, city, __START_AT, __END_AT)");
        assertThat(names(t, "SELECT name, city FROM AS_OF(input => TABLE users_history, business_time => 5)"))
                .containsExactlyInAnyOrder("Isabel/Chihuahua", "Raul/Oaxaca", "Mercedes/Mexicali", "Lily/Cancun");
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
        // Chris's rows as the engine emits them in retract mode through steps 2-4 of the walkthrough
        DataStream<Row> changes = env.fromData(
                Row.ofKind(RowKind.INSERT, 1, "Owner", jan1, null, jan2, null),
                // step 3: Owner closes at 2025-03-01 09:00 in system time; Owner until 03-01 and Manager believed from then
                Row.ofKind(RowKind.UPDATE_BEFORE, 1, "Owner", jan1, null, jan2, null),
                Row.ofKind(RowKind.UPDATE_AFTER, 1, "Owner", jan1, null, jan2, mar1),
                Row.ofKind(RowKind.INSERT, 1, "Owner", jan1, march1, mar1, null),
                Row.ofKind(RowKind.INSERT, 1, "Manager", march1, null, mar1, null),
                // step 4 (late Team Lead from 02-01): Owner until 03-01 closes at 03-15; Owner until 02-01 and Team Lead added
                Row.ofKind(RowKind.UPDATE_BEFORE, 1, "Owner", jan1, march1, mar1, null),
                Row.ofKind(RowKind.UPDATE_AFTER, 1, "Owner", jan1, march1, mar1, mar15),
                Row.ofKind(RowKind.INSERT, 1, "Owner", jan1, feb1, mar15, null),
                Row.ofKind(RowKind.INSERT, 1, "Team Lead", feb1, march1, mar15, null));
        t.createTemporaryView("chris", t.fromChangelogStream(changes, Schema.newBuilder()
                .column("employeeId", DataTypes.INT()).column("role", DataTypes.STRING())
                .column("__START_AT", DataTypes.DATE()).column("__END_AT", DataTypes.DATE())
                .column("__SYSTEM_START_AT", DataTypes.TIMESTAMP(0)).column("__SYSTEM_END_AT", DataTypes.TIMESTAMP(0))
                .build(), ChangelogMode.all()));
        List<Row> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SELECT role FROM AS_OF(input => TABLE chris,"
                + " business_time => DATE '2025-02-15', system_time => TIMESTAMP '2100-01-01 00:00:00')").collect()) {
            it.forEachRemaining(out::add);
        }
        // materialized: only Team Lead is believed now for 2025-02-15; Owner was in the answer, then retracted
        Map<String, Integer> table = new HashMap<>();
        int retractions = 0;
        for (Row r : out) {
            int delta = r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER ? 1 : -1;
            retractions += delta < 0 ? 1 : 0;
            table.merge((String) r.getField(0), delta, Integer::sum);
        }
        table.values().removeIf(n -> n == 0);
        assertThat(table).isEqualTo(Map.of("Team Lead", 1));
        assertThat(retractions).as("Owner left the answer when history was revised: " + out).isGreaterThan(0);
    }

    @Test
    void aTimeOfTheWrongTypeFailsAtPlanningNamingTheArgument() {
        TableEnvironment t = batch();
        assertThatThrownBy(() -> t.executeSql("SELECT * FROM AS_OF(input => TABLE employees_bitemporal,"
                + " business_time => TIMESTAMP '2025-02-15 00:00:00')").collect().close())
                .hasStackTraceContaining("business_time").hasStackTraceContaining("__START_AT");
        assertThatThrownBy(() -> t.executeSql("SELECT * FROM AS_OF(input => TABLE employees_bitemporal,"
                + " business_time => DATE '2025-02-15', system_time => DATE '2025-03-10')").collect().close())
                .hasStackTraceContaining("system_time").hasStackTraceContaining("__SYSTEM_START_AT");
        t.executeSql("CREATE TEMPORARY VIEW plain AS SELECT * FROM (VALUES (1, 'a')) AS p(id, v)");
        assertThatThrownBy(() -> t.executeSql("SELECT * FROM AS_OF(input => TABLE plain, business_time => 1)").collect().close())
                .hasStackTraceContaining("no __START_AT");
    }

    @Test
    void believedAtAndValidAtAnswerInAWhereClause() throws Exception {
        TableEnvironment t = batch();
        t.executeSql("CREATE FUNCTION VALID_AT AS 'dev.autocdc.udfs.ValidAt'");
        t.executeSql("CREATE FUNCTION BELIEVED_AT AS 'dev.autocdc.udfs.BelievedAt'");
        assertThat(names(t, "SELECT name, role FROM employees_bitemporal WHERE VALID_AT(__START_AT, __END_AT, DATE '2025-02-15')"
                + " AND BELIEVED_AT(__SYSTEM_START_AT, __SYSTEM_END_AT, TIMESTAMP '2025-03-10 00:00:00')"))
                .containsExactlyInAnyOrder("Chris/Owner", "Dana/Engineer");
        assertThatThrownBy(() -> t.executeSql("SELECT * FROM employees_bitemporal"
                + " WHERE VALID_AT(__START_AT, __END_AT, TIMESTAMP '2025-02-15 00:00:00')").collect().close())
                .hasStackTraceContaining("VALID_AT");
    }

    static List<String> names(TableEnvironment t, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(r.getField(0) + "/" + r.getField(1)));
        }
        return out;
    }
}
