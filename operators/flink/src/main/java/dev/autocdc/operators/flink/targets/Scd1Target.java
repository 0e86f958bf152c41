package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.EngineCounters;
import dev.autocdc.operators.core.EventOrder;
import dev.autocdc.operators.core.Scd1Engine;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.List;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.TimerService;

/**
 * SCD type 1 in keyed state: the key's decisive events ({@link Scd1Engine}) in {@value
 * StateNames#SCD1_EVENTS}, one value read and at most one written per event, and the tombstone
 * retention.
 *
 * <p>With APPLY AS TRUNCATE WHEN, the greatest truncate in force (the floor, from broadcast state)
 * is applied to a key before its event when no delete of the key covers it, and not counted as an
 * event; a key that only the floor decides keeps no state (the floor is its tombstone). {@link
 * #applyTruncate} applies a new floor to a key that has state.
 */
public final class Scd1Target implements KeyedTarget {
    private final Scd1Engine engine;

    /** Applies the floor, which is not an event of the key: it counts nothing. */
    private final Scd1Engine floorEngine;

    private final EventOrder order;
    private final ValueState<List<ChangeEvent>> events;
    private final TombstoneTimer tombstones;
    private final boolean truncates;
    private final StateAccessCounter counter;

    Scd1Target(
            EngineSpec spec,
            KeyedStateAccess states,
            EngineCounters counters,
            StateAccessCounter counter) {
        this.engine = new Scd1Engine(spec.flow(), counters);
        this.floorEngine = new Scd1Engine(spec.flow(), EngineCounters.NONE);
        this.order = new EventOrder(spec.flow());
        this.events = states.getState(StateDescriptors.scd1Events(spec.flow().columnTypes()));
        this.tombstones = new TombstoneTimer(states, spec.tombstoneRetention());
        this.truncates = spec.field(ControlColumn.TRUNCATE) >= 0;
        this.counter = counter;
    }

    @Override
    public boolean apply(
            ChangeEvent event, ChangeEvent floor, TimerService timers, List<TargetChange> out)
            throws Exception {
        List<ChangeEvent> state = events.value();
        counter.valueReads++;
        // a key without state may be one a truncate cleared while its tombstone timer was pending
        boolean wasTombstone = Scd1Engine.isTombstone(state) || state == null && truncates;
        List<ChangeEvent> next = state;
        if (floor != null && !coveredByDelete(state, floor)) {
            next = floorEngine.apply(next, floor, out); // a key first seen after the truncate
        }
        next = engine.apply(next, event, out);
        if (floor != null && next.size() == 1 && next.get(0) == floor) {
            next = null; // only the truncate decides: the broadcast floor is the tombstone
        }
        if (next != state) {
            if (next == null) {
                events.clear();
            } else {
                events.update(next);
            }
            counter.valueWrites++;
        }
        tombstones.track(wasTombstone, next != null && Scd1Engine.isTombstone(next), timers);
        return true;
    }

    /**
     * Applies a new truncate floor to one key that has state (from the broadcast side, through
     * applyToKeyedState): its row is deleted unless events after the truncate keep it.
     */
    public void applyTruncate(
            ValueState<List<ChangeEvent>> state, ChangeEvent truncate, List<TargetChange> out)
            throws Exception {
        List<ChangeEvent> before = state.value();
        List<ChangeEvent> next = engine.apply(before, truncate, out);
        if (next.size() == 1 && next.get(0) == truncate) {
            state.clear();
        } else if (next != before) {
            state.update(next);
        }
    }

    @Override
    public boolean erase(TimerService timers, List<TargetChange> out) throws Exception {
        Object[] row = engine.row(events.value());
        if (row != null) {
            out.add(TargetChange.delete(row));
        }
        events.clear();
        tombstones.forget(timers);
        return true; // a key whose tombstone expired has no row: the delete removed it
    }

    @Override
    public void onTimer(long timestamp, TimerService timers) throws Exception {
        // a key that came back while tombstones were kept forever is not forgotten
        if (tombstones.expiresAt(timestamp) && Scd1Engine.isTombstone(events.value())) {
            events.clear();
        }
    }

    /**
     * Whether the key already holds a delete at or after the truncate (then the truncate changes
     * nothing).
     */
    private boolean coveredByDelete(List<ChangeEvent> state, ChangeEvent truncate) {
        if (state == null) {
            return false;
        }
        for (ChangeEvent e : state) {
            if (!e.isUpsert() && order.compare(e, truncate) >= 0) {
                return true;
            }
        }
        return false;
    }
}
