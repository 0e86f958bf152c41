package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/** VALID_AT in Flink SQL: the reference's "what did we believe on 2025-03-10 about 2025-02-15". */
class ValidAtTest {

    @Test
    void answersTheReferenceQueryOnTheEmployeesTableAfterStep5() throws Exception {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.executeSql("CREATE FUNCTION VALID_AT AS 'dev.autocdc.udfs.ValidAt'");
        t.executeSql(
                "CREATE TEMPORARY VIEW employees_bitemporal AS " + AsOfTest.EMPLOYEES_AFTER_STEP5);
        assertThat(
                        query(
                                t,
                                "SELECT name, role FROM employees_bitemporal WHERE"
                                        + " VALID_AT(__START_AT, __END_AT, DATE '2025-02-15') AND"
                                        + " VALID_AT(__SYSTEM_START_AT, __SYSTEM_END_AT, TIMESTAMP"
                                        + " '2025-03-10 00:00:00')"))
                .containsExactlyInAnyOrder("Chris,Owner", "Dana,Engineer");
        assertThat(
                        query(
                                t,
                                "SELECT name, role FROM employees_bitemporal WHERE"
                                        + " VALID_AT(__START_AT, __END_AT, DATE '2025-02-15') AND"
                                        + " VALID_AT(__SYSTEM_START_AT, __SYSTEM_END_AT, TIMESTAMP"
                                        + " '2026-01-01 00:00:00')"))
                .containsExactlyInAnyOrder("Chris,Team Lead", "Dana,Analyst");
    }

    @Test
    void isHalfOpenAndNullSafe() {
        ValidAt f = new ValidAt();
        assertThat(f.eval(1, 5, 1)).isTrue();
        assertThat(f.eval(1, 5, 5)).isFalse();
        assertThat(f.eval(1, null, 100)).isTrue();
        assertThat(f.eval(2, null, 1)).isFalse();
        assertThat(f.eval(null, 5, 3)).isNull();
    }

    private static List<String> query(TableEnvironment t, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(r.getField(0) + "," + r.getField(1)));
        }
        return out;
    }
}
