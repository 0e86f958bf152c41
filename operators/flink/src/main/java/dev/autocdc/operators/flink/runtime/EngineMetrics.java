package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.EngineCounters;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;

/**
 * A flow's metrics (semantics §8), under the group {@code flow/<name>} of the operator's metric
 * group. The engines count late events, conflicting ties and duplicates into it directly ({@link
 * EngineCounters}); the runtime counts the rest. Two gauges tell how fresh the target is, when the
 * sequence that orders the target's versions (SYSTEM SEQUENCE BY for a bitemporal flow, else
 * SEQUENCE BY) has a number ({@link SequenceClock}): {@value #NEWEST_APPLIED}, the greatest such
 * sequence this subtask applied, and for time-typed sequences {@value #LAG}, the wall clock minus
 * it; both are -1 until the subtask applies an event.
 */
public final class EngineMetrics implements EngineCounters {
    /** Input rows the flow received (every row, including those that become dead letters). */
    public final Counter input;

    /** Target rows inserted or updated. */
    final Counter upserted;

    /** Target rows deleted. */
    final Counter deleted;

    /** Input rows sent to the dead letters (semantics §11). */
    public final Counter deadLettered;

    /** A changelog source's {@code -U} rows, skipped: the {@code +U} carries the new row. */
    public final Counter skippedUpdateBefore;

    /**
     * Events sent to the late events because they would change history that left state (semantics
     * §7).
     */
    public final Counter droppedLate;

    /** Keys erased (their rows deleted, their state cleared). */
    final Counter erased;

    /** The greatest applied sequence, as {@link SequenceClock} reads it. */
    public static final String NEWEST_APPLIED = "newest_applied_sequence";

    /** Milliseconds from the greatest applied time-typed sequence to the wall clock. */
    public static final String LAG = "applied_sequence_lag_ms";

    private final Counter late;
    private final Counter ties;
    private final Counter duplicates;

    private final SequenceClock clock;

    /** Written by the task's thread, read by the metric reporter's. */
    private volatile long newestApplied = Long.MIN_VALUE;

    /**
     * @param clock reads the applied events' sequence, or null when it has no number (no gauges)
     */
    public EngineMetrics(MetricGroup operator, String flowName, SequenceClock clock) {
        MetricGroup metrics = operator.addGroup("flow", flowName);
        this.clock = clock;
        if (clock != null) {
            metrics.gauge(
                    NEWEST_APPLIED,
                    (Gauge<Long>) () -> newestApplied == Long.MIN_VALUE ? -1L : newestApplied);
            if (clock.isTime()) {
                metrics.gauge(
                        LAG,
                        (Gauge<Long>)
                                () ->
                                        newestApplied == Long.MIN_VALUE
                                                ? -1L
                                                : Math.max(
                                                        0L,
                                                        System.currentTimeMillis()
                                                                - newestApplied));
            }
        }
        input = metrics.counter("num_input_rows");
        upserted = metrics.counter("num_upserted_rows");
        deleted = metrics.counter("num_deleted_rows");
        deadLettered = metrics.counter("num_dead_letters");
        skippedUpdateBefore = metrics.counter("num_skipped_update_before");
        late = metrics.counter("num_late_events");
        droppedLate = metrics.counter("num_late_events_dropped");
        ties = metrics.counter("num_conflicting_ties");
        duplicates = metrics.counter("num_duplicate_events");
        erased = metrics.counter("num_erased_keys");
    }

    /** Notes an applied input row for the freshness gauges. */
    public void applied(RowData input) {
        if (clock != null) {
            long sequence = clock.read(input);
            if (sequence > newestApplied) {
                newestApplied = sequence;
            }
        }
    }

    public long late() {
        return late.getCount();
    }

    public long conflictingTies() {
        return ties.getCount();
    }

    public long duplicates() {
        return duplicates.getCount();
    }

    @Override
    public void countLate() {
        late.inc();
    }

    @Override
    public void countConflictingTie() {
        ties.inc();
    }

    @Override
    public void countDuplicate() {
        duplicates.inc();
    }
}
