package dev.autocdc.operators.flink.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
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
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * The reused binary row the Flink operators emit holds, field by field, what the new generic row
 * holds, for every column type, with and without nulls, and each emitted row is whole when the
 * collector gets it.
 */
class ChangelogEmitterTest {

    private static final LogicalType[] COLUMNS = {
        new IntType(false), // the key
        new BooleanType(),
        new BigIntType(),
        new DoubleType(),
        new VarCharType(VarCharType.MAX_LENGTH),
        new CharType(3),
        new DecimalType(10, 2), // compact
        new DecimalType(30, 4), // kept in the variable-length part
        new DateType(),
        new TimeType(),
        new TimestampType(3), // compact
        new TimestampType(9),
        new LocalZonedTimestampType(6),
        new VarBinaryType(VarBinaryType.MAX_LENGTH),
        new ArrayType(new IntType()),
        new MapType(new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()),
        RowType.of(new IntType(), new VarCharType(VarCharType.MAX_LENGTH))
    };

    private static final Object[] VALUES = {
        7,
        true,
        1L << 40,
        -0.5,
        "a string longer than seven bytes, with ü",
        "abc",
        new BigDecimal("12345678.91"),
        new BigDecimal("12345678901234567890123456.7891"),
        LocalDate.of(2025, 3, 1),
        LocalTime.of(9, 30, 15, 123_000_000),
        LocalDateTime.of(2025, 3, 1, 9, 0, 0, 123_000_000),
        LocalDateTime.of(2025, 3, 1, 9, 0, 0, 123_456_789),
        Instant.parse("2025-03-01T09:00:00.123456Z"),
        new byte[] {1, 2, 3},
        java.util.Arrays.asList(1, null, 3),
        Map.of("x", 1L),
        new Object[] {5, "short"}
    };

    private static EngineSpec spec() {
        List<LogicalType> types = new ArrayList<>(List.of(COLUMNS));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < COLUMNS.length; i++) {
            names.add("c" + i);
        }
        types.add(new BigIntType(false));
        names.add(ControlColumn.SEQUENCE.columnName());
        return EngineSpec.builder(
                        "f",
                        TargetType.SCD1,
                        RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0])))
                .keys("c0")
                .outputMode(OutputMode.RETRACT)
                .build();
    }

    /** What a collector sees, each row copied by Flink's serializer as it arrives. */
    private static List<RowData> emit(EngineSpec spec, boolean reuse, List<TargetChange> changes) {
        ChangelogEmitter emitter =
                new ChangelogEmitter(
                        spec,
                        new EngineMetrics(
                                new UnregisteredMetricsGroup(), "f", SequenceClock.of(spec)),
                        reuse);
        RowDataSerializer serializer = new RowDataSerializer(spec.targetType());
        List<RowData> seen = new ArrayList<>();
        emitter.emit(
                changes,
                new Collector<>() {
                    @Override
                    public void collect(RowData row) {
                        seen.add(serializer.copy(row));
                    }

                    @Override
                    public void close() {}
                });
        return seen;
    }

    @Test
    void theReusedBinaryRowHoldsWhatTheGenericRowHolds() {
        EngineSpec spec = spec();
        Object[] nulls = new Object[VALUES.length];
        nulls[0] = 8;
        Object[] other = VALUES.clone();
        other[4] = "x";
        List<TargetChange> changes =
                List.of(
                        TargetChange.insert(VALUES),
                        TargetChange.update(VALUES, nulls),
                        TargetChange.update(nulls, other),
                        TargetChange.delete(other));
        List<RowData> binary = emit(spec, true, changes);
        List<RowData> generic = emit(spec, false, changes);
        assertThat(binary).hasSize(6).allMatch(r -> r instanceof BinaryRowData);
        RowDataSerializer serializer = new RowDataSerializer(spec.targetType());
        List<RowKind> kinds = new ArrayList<>();
        for (int i = 0; i < binary.size(); i++) {
            kinds.add(binary.get(i).getRowKind());
            assertThat(binary.get(i).getRowKind()).isEqualTo(generic.get(i).getRowKind());
            // the same bytes as Flink's own conversion of the generic row
            assertThat(binary.get(i))
                    .as("row " + i)
                    .isEqualTo(serializer.toBinaryRow(generic.get(i)));
        }
        assertThat(kinds)
                .containsExactly(
                        RowKind.INSERT,
                        RowKind.UPDATE_BEFORE,
                        RowKind.UPDATE_AFTER,
                        RowKind.UPDATE_BEFORE,
                        RowKind.UPDATE_AFTER,
                        RowKind.DELETE);
        assertThat(binary.get(2).isNullAt(4)).isTrue();
        assertThat(binary.get(4).getString(4).toString()).isEqualTo("x");
        assertThat(binary.get(0).getString(4).toString()).isEqualTo(VALUES[4]);
    }

    /**
     * A row stored before columns were added is shorter than the target: the missing columns are
     * null, in both ways of handing rows over.
     */
    @Test
    void aShortStoredRowHasNullsAfterItsEnd() {
        EngineSpec spec = spec();
        Object[] shortRow = java.util.Arrays.copyOf(VALUES, 5);
        Object[] padded = java.util.Arrays.copyOf(VALUES, VALUES.length);
        java.util.Arrays.fill(padded, 5, padded.length, null);
        RowDataSerializer serializer = new RowDataSerializer(spec.targetType());
        for (boolean reuse : new boolean[] {true, false}) {
            // a full row first, so that a reused row holds bytes in every field
            List<RowData> rows =
                    emit(
                            spec,
                            reuse,
                            List.of(TargetChange.insert(VALUES), TargetChange.insert(shortRow)));
            List<RowData> expected = emit(spec, false, List.of(TargetChange.insert(padded)));
            assertThat(serializer.toBinaryRow(rows.get(1)))
                    .as("reuse " + reuse)
                    .isEqualTo(serializer.toBinaryRow(expected.get(0)));
            assertThat(rows.get(1).isNullAt(VALUES.length - 1)).isTrue();
        }
    }
}
