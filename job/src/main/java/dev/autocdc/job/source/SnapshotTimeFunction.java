package dev.autocdc.job.source;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.functions.ScalarFunction;

/**
 * A snapshot's version (bitemporal: system sequence) as the time its watermark is in, the same
 * number the engine times snapshots by ({@code SequenceClock}): a DATE at its midnight UTC, a
 * TIMESTAMP (read as UTC) or TIMESTAMP_LTZ to the millisecond below, an integer as that many
 * milliseconds after the epoch. Null for null. Registered as {@value #NAME}.
 */
public final class SnapshotTimeFunction extends ScalarFunction {
    private static final long serialVersionUID = 1L;

    /** The name the planner registers it under (a temporary system function). */
    public static final String NAME = "__autocdc_snapshot_time";

    public @DataTypeHint("TIMESTAMP(3)") LocalDateTime eval(LocalDate date) {
        return date == null ? null : date.atStartOfDay();
    }

    public @DataTypeHint("TIMESTAMP(3)") LocalDateTime eval(
            @DataTypeHint("TIMESTAMP(9)") LocalDateTime time) {
        return time == null ? null : millis(time.toInstant(ZoneOffset.UTC).toEpochMilli());
    }

    public @DataTypeHint("TIMESTAMP(3)") LocalDateTime eval(
            @DataTypeHint("TIMESTAMP_LTZ(9)") Instant time) {
        return time == null ? null : millis(time.toEpochMilli());
    }

    public @DataTypeHint("TIMESTAMP(3)") LocalDateTime eval(Long value) {
        return value == null ? null : millis(value);
    }

    public @DataTypeHint("TIMESTAMP(3)") LocalDateTime eval(Integer value) {
        return value == null ? null : millis(value);
    }

    private static LocalDateTime millis(long epochMillis) {
        return LocalDateTime.ofEpochSecond(
                Math.floorDiv(epochMillis, 1000),
                (int) Math.floorMod(epochMillis, 1000) * 1_000_000,
                ZoneOffset.UTC);
    }
}
