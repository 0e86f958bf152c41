package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.EngineCounters;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.List;
import org.apache.flink.streaming.api.TimerService;

/**
 * One target type's keyed state, the engine that applies events to it, and its timers, for the key
 * the host has set as current: {@link Scd1Target}, {@link Scd2Target}, {@link BitemporalTarget}.
 * Each keeps its own tombstone retention ({@link TombstoneTimer}) and, for history targets, its
 * history retention ({@link HistoryPruning}); {@link StateNames} names the states.
 */
public interface KeyedTarget {

    /**
     * Applies one event of the current key and appends its target changes to {@code out}.
     *
     * @param truncateFloor the greatest truncate still in force (SCD1 flows with truncates), or
     *     null; the history targets never get one ({@link EngineSpec} refuses truncates for them)
     * @param timers for retention timers and the processing time; used only when a retention is set
     * @return false, changing nothing, when the event lands at or before the oldest sequence the
     *     key still holds (semantics §7): its history left state, and the event goes to the late
     *     events
     */
    boolean apply(
            ChangeEvent event,
            ChangeEvent truncateFloor,
            TimerService timers,
            List<TargetChange> out)
            throws Exception;

    /**
     * Removes every trace of the current key: appends a delete of each target row its state holds
     * to {@code out}, and clears its state and timers, so that a later event of the key starts a
     * new history.
     *
     * @return false when history of the key had left state (a history retention, an expired
     *     tombstone): its rows are in the sink only, and not among the deletes
     */
    boolean erase(TimerService timers, List<TargetChange> out) throws Exception;

    /**
     * Runs the current key's timers due at {@code timestamp} (processing time); a stale timer does
     * nothing.
     */
    void onTimer(long timestamp, TimerService timers) throws Exception;

    /**
     * The target for the spec's type, its states created through {@code states}.
     *
     * @param previousRecentLayout write the history targets' recent entries in their previous
     *     layout (tests of the migration; restores read it either way)
     */
    static KeyedTarget open(
            EngineSpec spec,
            KeyedStateAccess states,
            EngineCounters metrics,
            StateAccessCounter counter,
            boolean previousRecentLayout) {
        switch (spec.flow().targetType()) {
            case SCD1:
                return new Scd1Target(spec, states, metrics, counter);
            case SCD2:
                return new Scd2Target(spec, states, metrics, counter, previousRecentLayout);
            default:
                return new BitemporalTarget(spec, states, metrics, counter, previousRecentLayout);
        }
    }
}
