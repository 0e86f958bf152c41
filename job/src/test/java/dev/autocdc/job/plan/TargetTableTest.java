package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.EngineSpec;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/** The JSON-lines rendering of --materialize, type by type. */
class TargetTableTest {

    private static String json(LogicalType type, Object value) {
        StringBuilder b = new StringBuilder();
        TargetTable.value(b, type, value);
        return b.toString();
    }

    @Test
    void rendersEveryTypeAsTheCliPromises() {
        assertThat(json(new IntType(), 42)).isEqualTo("42");
        assertThat(json(new BigIntType(), 1L << 40)).isEqualTo("1099511627776");
        assertThat(json(new DecimalType(10, 3), new BigDecimal("12.500"))).isEqualTo("12.500");
        assertThat(json(new DoubleType(), 1.5d)).isEqualTo("1.5");
        assertThat(json(new BooleanType(), true)).isEqualTo("true");
        assertThat(json(VarCharType.STRING_TYPE, "say \"hi\"\n"))
                .isEqualTo("\"say \\\"hi\\\"\\n\"");
        assertThat(json(new DateType(), LocalDate.of(2025, 1, 2))).isEqualTo("\"2025-01-02\"");
        assertThat(json(new TimeType(), LocalTime.of(9, 5, 7))).isEqualTo("\"09:05:07\"");
        assertThat(json(new TimeType(3), LocalTime.of(9, 5, 7, 120_000_000)))
                .isEqualTo("\"09:05:07.12\"");
        assertThat(json(new TimestampType(0), LocalDateTime.of(2025, 3, 1, 9, 0)))
                .isEqualTo("\"2025-03-01 09:00:00\"");
        assertThat(json(new TimestampType(6), LocalDateTime.of(2025, 3, 1, 9, 0, 0, 500_000)))
                .isEqualTo("\"2025-03-01 09:00:00.0005\"");
        assertThat(json(new LocalZonedTimestampType(3), Instant.parse("2025-03-01T09:00:00.250Z")))
                .isEqualTo("\"2025-03-01 09:00:00.25Z\"");
        assertThat(json(new VarBinaryType(10), new byte[] {1, 2, (byte) 255}))
                .isEqualTo("\"AQL/\"");
        assertThat(
                        json(
                                RowType.of(
                                        new LogicalType[] {new IntType(), VarCharType.STRING_TYPE},
                                        new String[] {"a", "b"}),
                                new Object[] {1, null}))
                .isEqualTo("{\"a\": 1, \"b\": null}");
        assertThat(json(new ArrayType(new IntType()), List.of(1, 2))).isEqualTo("[1, 2]");
        assertThat(json(new MapType(VarCharType.STRING_TYPE, new IntType()), Map.of("k", 3)))
                .isEqualTo("{\"k\": 3}");
        assertThat(json(new IntType(), null)).isEqualTo("null");
    }

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
