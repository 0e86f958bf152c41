package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.runtime.SequenceClock;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** The applied sequence as a number, and the freshness gauges built on it. */
class SequenceClockTest {
    private static final long MILLIS_2026_12_01 =
            LocalDate.of(2026, 12, 1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();

    @Test
    void timesReadAsEpochMillisecondsAndIntegersAsThemselves() {
        LocalDateTime t = LocalDateTime.of(2026, 12, 1, 10, 30, 15, 123_456_789);
        long tMillis = t.toInstant(ZoneOffset.UTC).toEpochMilli();
        assertThat(read(new TimestampType(6), TimestampData.fromLocalDateTime(t)))
                .isEqualTo(tMillis);
        assertThat(read(new LocalZonedTimestampType(3), TimestampData.fromEpochMillis(tMillis)))
                .isEqualTo(tMillis);
        assertThat(read(new DateType(), (int) LocalDate.of(2026, 12, 1).toEpochDay()))
                .isEqualTo(MILLIS_2026_12_01);
        assertThat(read(new SmallIntType(), (short) -7)).isEqualTo(-7L);
        assertThat(read(new IntType(), 42)).isEqualTo(42L);
        assertThat(read(new BigIntType(), 1_796_000_000_000L)).isEqualTo(1_796_000_000_000L);
        assertThat(read(new IntType(), null)).isEqualTo(Long.MIN_VALUE);
        assertThat(SequenceClock.of(0, new TimestampType(3)).isTime()).isTrue();
        assertThat(SequenceClock.of(0, new DateType()).isTime()).isTrue();
        assertThat(SequenceClock.of(0, new BigIntType()).isTime()).isFalse();
    }

    @Test
    void typesWithoutANumberHaveNoClock() {
        assertThat(SequenceClock.of(0, new DecimalType(10, 2))).isNull();
        assertThat(SequenceClock.of(0, VarCharType.STRING_TYPE)).isNull();
        assertThat(SequenceClock.of(0, RowType.of(new IntType(), new IntType()))).isNull();
    }

    @Test
    void theGaugesFollowTheGreatestAppliedSequenceAndTheWallClock() {
        MetricListener listener = new MetricListener();
        EngineMetrics m =
                new EngineMetrics(
                        listener.getMetricGroup(), "f", SequenceClock.of(1, new TimestampType(3)));
        Gauge<Long> newest =
                listener.<Long>getGauge("flow", "f", EngineMetrics.NEWEST_APPLIED).get();
        Gauge<Long> lag = listener.<Long>getGauge("flow", "f", EngineMetrics.LAG).get();
        assertThat(newest.getValue()).isEqualTo(-1L);
        assertThat(lag.getValue()).isEqualTo(-1L);
        long hourAgo = System.currentTimeMillis() - 3_600_000L;
        m.applied(GenericRowData.of(1, TimestampData.fromEpochMillis(hourAgo)));
        m.applied(GenericRowData.of(1, TimestampData.fromEpochMillis(hourAgo - 10_000L)));
        assertThat(newest.getValue()).isEqualTo(hourAgo);
        // an hour, plus however long this test took since it read the clock
        assertThat(lag.getValue()).isBetween(3_600_000L, 3_600_000L + 600_000L);
        // a sequence in the future (a source clock ahead) is no lag
        m.applied(GenericRowData.of(1, TimestampData.fromEpochMillis(hourAgo + 7_200_000L)));
        assertThat(lag.getValue()).isZero();
    }

    @Test
    void anIntegerSequenceHasTheNewestGaugeButNoLagAndABitemporalFlowUsesItsSystemSequence() {
        EngineSpec scd2 = AutoCdcFunctionTest.users(TargetType.SCD2, OutputMode.RETRACT);
        MetricListener listener = new MetricListener();
        new EngineMetrics(listener.getMetricGroup(), "users", SequenceClock.of(scd2));
        assertThat(listener.getGauge("flow", "users", EngineMetrics.NEWEST_APPLIED)).isPresent();
        assertThat(listener.getGauge("flow", "users", EngineMetrics.LAG)).isEmpty();

        RowType input =
                RowType.of(
                        new LogicalType[] {
                            new IntType(),
                            new IntType(false),
                            new TimestampType(false, 3),
                            new BooleanType()
                        },
                        new String[] {"id", "__seq", "__sys", "__delete"});
        EngineSpec bitemporal =
                EngineSpec.builder("b", TargetType.BITEMPORAL, input).keys("id").build();
        assertThat(SequenceClock.of(bitemporal).isTime()).isTrue();
    }

    private static long read(LogicalType type, Object value) {
        return SequenceClock.of(0, type).read(GenericRowData.of(value));
    }
}
