package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.EngineSpec;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/** The table --materialize keeps from a changelog (its JSON rendering: {@code JsonRowsTest}). */
class TargetTableTest {

    /**
     * A sequence STRUCT is part of an SCD2 primary key: a retraction must find the row it retracts.
     */
    @Test
    void aRowInThePrimaryKeyIsMatchedByValue() {
        RowType seq =
                RowType.of(
                        new LogicalType[] {new IntType(), new IntType()}, new String[] {"a", "b"});
        EngineSpec spec =
                EngineSpec.builder(
                                "f",
                                TargetType.SCD2,
                                RowType.of(
                                        new LogicalType[] {
                                            new IntType(), VarCharType.STRING_TYPE, seq
                                        },
                                        new String[] {"id", "v", "__seq"}))
                        .keys("id")
                        .build();
        TargetTable table = new TargetTable(spec);
        table.apply(row(RowKind.INSERT, 1, "x", GenericRowData.of(1, 1), null));
        table.apply(row(RowKind.UPDATE_BEFORE, 1, "x", GenericRowData.of(1, 1), null));
        table.apply(
                row(
                        RowKind.UPDATE_AFTER,
                        1,
                        "x",
                        GenericRowData.of(1, 1),
                        GenericRowData.of(2, 1)));
        table.apply(row(RowKind.INSERT, 1, "y", GenericRowData.of(2, 1), null));
        assertThat(table.size()).isEqualTo(2);
        table.apply(row(RowKind.DELETE, 1, "y", GenericRowData.of(2, 1), null));
        assertThat(table.size()).isEqualTo(1);
    }

    private static RowData row(RowKind kind, int id, String v, RowData start, RowData end) {
        GenericRowData row = GenericRowData.of(id, StringData.fromString(v), start, end);
        row.setRowKind(kind);
        return row;
    }
}
