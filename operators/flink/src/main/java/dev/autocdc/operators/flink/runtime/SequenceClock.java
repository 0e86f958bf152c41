package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * Reads an applied event's sequence as a number for the flow's freshness gauges ({@link
 * EngineMetrics}): a TIMESTAMP or TIMESTAMP_LTZ as epoch milliseconds (a TIMESTAMP, which has no
 * zone, read as UTC), a DATE as the epoch milliseconds of its midnight UTC, a TINYINT to BIGINT as
 * its value. Other sequence types (DECIMAL, strings, structs) have no such number: {@link #of}
 * returns null. Reading allocates at most the {@code TimestampData} that {@code RowData} returns.
 */
public final class SequenceClock {
    private static final long MILLIS_PER_DAY = 86_400_000L;

    private enum Kind {
        TIMESTAMP,
        DATE,
        TINYINT,
        SMALLINT,
        INT,
        BIGINT
    }

    private final int field;
    private final Kind kind;
    private final int precision;

    private SequenceClock(int field, Kind kind, int precision) {
        this.field = field;
        this.kind = kind;
        this.precision = precision;
    }

    /**
     * @param field the sequence's position in the input row
     * @param type its type
     * @return the clock, or null when the type has no number to report
     */
    /**
     * The clock of the sequence that orders a flow's target versions (SYSTEM SEQUENCE BY for a
     * bitemporal flow, else SEQUENCE BY), or null when that sequence has no number.
     */
    public static SequenceClock of(EngineSpec spec) {
        int field =
                spec.flow().targetType() == TargetType.BITEMPORAL
                        ? spec.field(ControlColumn.SYSTEM_SEQUENCE)
                        : spec.field(ControlColumn.SEQUENCE);
        return of(field, spec.inputType().getTypeAt(field));
    }

    public static SequenceClock of(int field, LogicalType type) {
        switch (type.getTypeRoot()) {
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new SequenceClock(
                        field, Kind.TIMESTAMP, LogicalTypeChecks.getPrecision(type));
            case DATE:
                return new SequenceClock(field, Kind.DATE, 0);
            case TINYINT:
                return new SequenceClock(field, Kind.TINYINT, 0);
            case SMALLINT:
                return new SequenceClock(field, Kind.SMALLINT, 0);
            case INTEGER:
                return new SequenceClock(field, Kind.INT, 0);
            case BIGINT:
                return new SequenceClock(field, Kind.BIGINT, 0);
            default:
                return null;
        }
    }

    /**
     * Whether the number is a point in time (epoch milliseconds), so that a lag means something.
     */
    public boolean isTime() {
        return kind == Kind.TIMESTAMP || kind == Kind.DATE;
    }

    /** The input row's sequence as the number, or {@link Long#MIN_VALUE} when it is null. */
    public long read(RowData row) {
        if (row.isNullAt(field)) {
            return Long.MIN_VALUE;
        }
        switch (kind) {
            case TIMESTAMP:
                return row.getTimestamp(field, precision).getMillisecond();
            case DATE:
                return row.getInt(field) * MILLIS_PER_DAY;
            case TINYINT:
                return row.getByte(field);
            case SMALLINT:
                return row.getShort(field);
            case INT:
                return row.getInt(field);
            default:
                return row.getLong(field);
        }
    }
}
