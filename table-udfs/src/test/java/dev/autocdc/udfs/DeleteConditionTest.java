package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * {@code apply_as_deletes} conditions: SQL's three-valued logic on each operator, literals and
 * column types compared by value, and each mistake refused naming the argument and the position.
 */
class DeleteConditionTest {
    private static final RowType INPUT =
            RowType.of(
                    new LogicalType[] {
                        VarCharType.STRING_TYPE,
                        new IntType(),
                        new DoubleType(),
                        new BooleanType(),
                        new DecimalType(10, 2),
                        new TimestampType(3),
                        VarCharType.STRING_TYPE
                    },
                    new String[] {"op", "n", "d", "flag", "amount", "ts", "my col"});

    /** A row of INPUT: op, n, d, flag, amount (null: SQL NULL). */
    private static GenericRowData row(String op, Integer n, Double d, Boolean flag, String amount) {
        return GenericRowData.of(
                op == null ? null : StringData.fromString(op),
                n,
                d,
                flag,
                amount == null ? null : DecimalData.fromBigDecimal(new BigDecimal(amount), 10, 2),
                null,
                StringData.fromString("it's"));
    }

    private static boolean deletes(String condition, GenericRowData row) {
        return DeleteCondition.parse("AUTO_CDC", condition, INPUT).test(row);
    }

    @Test
    void comparisonsOfStringsNumbersAndBooleans() {
        assertThat(deletes("op = 'DELETE'", row("DELETE", 1, 1.0, true, "1"))).isTrue();
        assertThat(deletes("OP = 'DELETE'", row("UPDATE", 1, 1.0, true, "1"))).isFalse();
        assertThat(deletes("op <> 'UPDATE'", row("DELETE", 1, 1.0, true, "1"))).isTrue();
        assertThat(deletes("op != 'DELETE'", row("DELETE", 1, 1.0, true, "1"))).isFalse();
        assertThat(deletes("n >= 10", row("U", 10, 1.0, true, "1"))).isTrue();
        assertThat(deletes("n < 10", row("U", 10, 1.0, true, "1"))).isFalse();
        // numbers compare by value across types: INT with a decimal literal, DECIMAL, DOUBLE
        assertThat(deletes("n = 1.0", row("U", 1, 1.0, true, "1"))).isTrue();
        assertThat(deletes("amount > 2.5", row("U", 1, 1.0, true, "2.51"))).isTrue();
        assertThat(deletes("d <= n", row("U", 2, 1.5, true, "1"))).isTrue();
        assertThat(deletes("flag = TRUE", row("U", 1, 1.0, true, "1"))).isTrue();
        assertThat(deletes("flag", row("U", 1, 1.0, false, "1"))).isFalse();
        assertThat(deletes("`my col` = 'it''s'", row("U", 1, 1.0, true, "1"))).isTrue();
    }

    @Test
    void threeValuedLogic() {
        GenericRowData nullOp = row(null, 1, 1.0, null, "1");
        // NULL is not TRUE: no delete, and NOT keeps it NULL
        assertThat(deletes("op = 'DELETE'", nullOp)).isFalse();
        assertThat(deletes("NOT op = 'DELETE'", nullOp)).isFalse();
        assertThat(deletes("flag", nullOp)).isFalse();
        assertThat(deletes("NOT flag", nullOp)).isFalse();
        // FALSE AND NULL is FALSE; TRUE OR NULL is TRUE; TRUE AND NULL is NULL
        assertThat(deletes("NOT (flag AND n = 2)", nullOp)).isTrue();
        assertThat(deletes("flag OR n = 1", nullOp)).isTrue();
        assertThat(deletes("flag AND n = 1", nullOp)).isFalse();
        assertThat(deletes("op IS NULL", nullOp)).isTrue();
        assertThat(deletes("op IS NOT NULL", nullOp)).isFalse();
        assertThat(deletes("flag IS NOT TRUE", nullOp)).isTrue();
        assertThat(deletes("flag IS FALSE", nullOp)).isFalse();
        assertThat(deletes("op = NULL", nullOp)).isFalse();
    }

    @Test
    void inLists() {
        assertThat(deletes("op IN ('D', 'DELETE')", row("DELETE", 1, 1.0, true, "1"))).isTrue();
        assertThat(deletes("op in ('D', 'X')", row("DELETE", 1, 1.0, true, "1"))).isFalse();
        assertThat(deletes("op NOT IN ('D', 'X')", row("DELETE", 1, 1.0, true, "1"))).isTrue();
        // x NOT IN (a, NULL) is never TRUE
        assertThat(deletes("op NOT IN ('D', NULL)", row("DELETE", 1, 1.0, true, "1"))).isFalse();
        assertThat(deletes("op NOT IN ('D')", row(null, 1, 1.0, true, "1"))).isFalse();
        assertThat(deletes("n IN (1, 2) AND (op = 'D' OR flag)", row("U", 2, 1.0, true, "1")))
                .isTrue();
    }

    @Test
    void mistakesNameTheArgumentAndThePosition() {
        refused("op = 'DELETE", "the quote ' at character 6 is not closed");
        refused("op = 1", "= between op (a STRING) and 1 (a NUMBER); compare values of one kind");
        refused("kind = 'D'", "names kind, which is not a column of the input");
        refused("ts = 'D'", "names ts, which is TIMESTAMP(3): the condition reads");
        refused("UPPER(op) = 'D'", "calls UPPER(...): only comparisons are read here");
        refused("op = 'D' op", "unexpected op; expected AND, OR or the end (at character 10)");
        refused("n", "n is a NUMBER: a test alone must be a BOOLEAN column or TRUE/FALSE");
        refused("flag IS 'x'", "expected NULL, TRUE or FALSE after IS");
        refused("op = 'D' AND", "ends early; expected a column or a value");
        refused("op ~ 'D'", "unexpected character ~ (at character 4)");
        refused("(op = 'D'", "expected )");
        refused("  ", "is empty");
    }

    private static void refused(String condition, String message) {
        assertThatThrownBy(() -> DeleteCondition.parse("AUTO_CDC", condition, INPUT))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("AUTO_CDC: argument apply_as_deletes")
                .hasMessageContaining(message);
    }
}
