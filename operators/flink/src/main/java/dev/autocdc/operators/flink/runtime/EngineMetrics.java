package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.EngineCounters;
import java.util.concurrent.atomic.AtomicLong;
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
 * it; both are -1 until the subtask applies an event. {@value #LAG} says how stale the target is
 * only when the sequence follows the wall clock; {@value #SINCE_APPLIED}, the milliseconds since
 * the subtask last applied an event, holds whatever the sequence is.
 *
 * <p>{@value #DEAD_LETTERS} is counted by each step that makes dead letters, in its own operator's
 * group {@code flow/<name>} ({@link #deadLetterCounter}): the engine here, and in the job its
 * input's check and its source's decoder. Their sum over the job's operators is every dead letter
 * of the flow. The names are documented in docs/deploy.md's metrics table.
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

    /** Milliseconds since the subtask last applied an event, by the wall clock. */
    public static final String SINCE_APPLIED = "ms_since_last_applied";

    public static final String INPUT_ROWS = "num_input_rows";
    public static final String UPSERTED_ROWS = "num_upserted_rows";
    public static final String DELETED_ROWS = "num_deleted_rows";

    /** Dead letters made by the step that counts them (see the class comment). */
    public static final String DEAD_LETTERS = "num_dead_letters";

    public static final String SKIPPED_UPDATE_BEFORE = "num_skipped_update_before";
    public static final String LATE_EVENTS = "num_late_events";
    public static final String LATE_EVENTS_DROPPED = "num_late_events_dropped";
    public static final String CONFLICTING_TIES = "num_conflicting_ties";
    public static final String DUPLICATE_EVENTS = "num_duplicate_events";
    public static final String ERASED_KEYS = "num_erased_keys";

    private final Counter late;
    private final Counter ties;
    private final Counter duplicates;

    private final SequenceClock clock;

    /** Written by the task's thread, read by the metric reporter's. */
    private volatile long newestApplied = Long.MIN_VALUE;

    /** When the subtask last applied an event; 0: never. Written lazily (no fence per event). */
    private final AtomicLong appliedAt = new AtomicLong();

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
        metrics.gauge(
                SINCE_APPLIED,
                (Gauge<Long>)
                        () -> {
                            long at = appliedAt.get();
                            return at == 0 ? -1L : Math.max(0L, System.currentTimeMillis() - at);
                        });
        input = metrics.counter(INPUT_ROWS);
        upserted = metrics.counter(UPSERTED_ROWS);
        deleted = metrics.counter(DELETED_ROWS);
        deadLettered = metrics.counter(DEAD_LETTERS);
        skippedUpdateBefore = metrics.counter(SKIPPED_UPDATE_BEFORE);
        late = metrics.counter(LATE_EVENTS);
        droppedLate = metrics.counter(LATE_EVENTS_DROPPED);
        ties = metrics.counter(CONFLICTING_TIES);
        duplicates = metrics.counter(DUPLICATE_EVENTS);
        erased = metrics.counter(ERASED_KEYS);
    }

    /**
     * The counter {@value #DEAD_LETTERS} of a step other than the engine that makes dead letters of
     * the flow, in its operator's group {@code flow/<name>}.
     */
    public static Counter deadLetterCounter(MetricGroup operator, String flowName) {
        return operator.addGroup("flow", flowName).counter(DEAD_LETTERS);
    }

    /** Notes an applied input row for the freshness gauges. */
    public void applied(RowData input) {
        appliedAt.lazySet(System.currentTimeMillis());
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
