package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/** A printed target row shows its kind and values, whether it came binary or generic. */
class PrintedRowTest {

    @Test
    void aBinaryRowPrintsItsValues() {
        RowType type =
                RowType.of(
                        new LogicalType[] {
                            new IntType(false), VarCharType.STRING_TYPE, new BigIntType()
                        },
                        new String[] {"userId", "city", "__END_AT"});
        GenericRowData generic =
                GenericRowData.ofKind(
                        RowKind.UPDATE_AFTER, 123, StringData.fromString("Monterrey"), null);
        PrintedRow printed = new PrintedRow(type);
        assertThat(printed.map(new RowDataSerializer(type).toBinaryRow(generic)))
                .isEqualTo("+U(123,Monterrey,null)")
                .isEqualTo(printed.map(generic));
    }
}
