package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.EngineCounters;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * A flow's metrics (SPEC §8), under the group {@code flow/<name>} of the operator's metric group.
 * The engines count late events, conflicting ties and duplicates into it directly ({@link
 * EngineCounters}); the runtime counts the rest.
 */
final class EngineMetrics implements EngineCounters {
    /** Target rows inserted or updated. */
    final Counter upserted;

    /** Target rows deleted. */
    final Counter deleted;

    /** Input rows sent to the dead letters (SPEC §11). */
    final Counter deadLettered;

    /** A changelog source's {@code -U} rows, skipped: the {@code +U} carries the new row. */
    final Counter skippedUpdateBefore;

    /**
     * Events sent to the late events because they would change history that left state (SPEC §7).
     */
    final Counter droppedLate;

    private final Counter late;
    private final Counter ties;
    private final Counter duplicates;

    EngineMetrics(MetricGroup operator, String flowName) {
        MetricGroup metrics = operator.addGroup("flow", flowName);
        upserted = metrics.counter("num_upserted_rows");
        deleted = metrics.counter("num_deleted_rows");
        deadLettered = metrics.counter("num_dead_letters");
        skippedUpdateBefore = metrics.counter("num_skipped_update_before");
        late = metrics.counter("num_late_events");
        droppedLate = metrics.counter("num_late_events_dropped");
        ties = metrics.counter("num_conflicting_ties");
        duplicates = metrics.counter("num_duplicate_events");
    }

    long late() {
        return late.getCount();
    }

    long conflictingTies() {
        return ties.getCount();
    }

    long duplicates() {
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
