package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.EngineCounters;
import dev.autocdc.operators.core.HistoryRetention;
import dev.autocdc.operators.core.Scd2Engine;
import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.TimerService;

/**
 * SCD type 2 in keyed state: the key's timeline ({@link FlinkTimeline}: {@value
 * StateNames#SCD2_RECENT} and {@value StateNames#SCD2_BLOCKS}) applied to by {@link Scd2Engine},
 * the tombstone retention, and the history retention. {@value StateNames#HISTORY_FLOOR} is the
 * oldest sequence the key still holds once history left state (a pruning pass, or an expired
 * tombstone, whose history is in the sink): an event at or before it is refused, since it would
 * change rows the sink holds.
 */
final class Scd2Target implements KeyedTarget {
    private final Scd2Engine engine;
    private final FlinkTimeline timeline;
    private final ValueState<byte[]> historyFloor;
    private final TombstoneTimer tombstones;
    private final HistoryPruning pruning;
    private final StateAccessCounter counter;

    Scd2Target(
            EngineSpec spec,
            KeyedStateAccess states,
            EngineCounters counters,
            StateAccessCounter counter,
            boolean previousRecentLayout) {
        List<ColumnType> types = spec.flow().columnTypes();
        this.engine = new Scd2Engine(spec.flow(), counters);
        this.timeline =
                new FlinkTimeline(
                        states.getState(StateDescriptors.scd2Recent(types, previousRecentLayout)),
                        states.getMapState(StateDescriptors.scd2Blocks(types)),
                        counter,
                        new StateCodec(types),
                        spec.blockSize());
        // Savepoints of pre-release builds hold SCD2 history under these names (format 1, one entry
        // per map key). Registering them makes Flink check their serializers, which refuse format
        // 1: such a restore fails instead of silently starting every key without its history.
        states.getState(StateDescriptors.legacyScd2Head(types));
        states.getMapState(StateDescriptors.legacyScd2Timeline(types));
        this.historyFloor = states.getState(StateDescriptors.historyFloor());
        this.pruning = new HistoryPruning(states, spec.historyRetention());
        this.tombstones = new TombstoneTimer(states, spec.tombstoneRetention());
        this.counter = counter;
    }

    @Override
    public boolean apply(
            ChangeEvent event,
            ChangeEvent truncateFloor,
            TimerService timers,
            List<TargetChange> out)
            throws Exception {
        timeline.beginEvent(pruning.writeTime(timers));
        TimelineEntry head = timeline.head();
        if (isBeforeRetainedHistory(event, head)) {
            return false;
        }
        boolean wasTombstone = head != null && head.state() == null;
        engine.apply(timeline, event, out);
        timeline.finishEvent();
        pruning.schedule(timers);
        tombstones.track(wasTombstone, timeline.head().state() == null, timers, pruning);
        return true;
    }

    /**
     * Whether the event lands at or before the oldest sequence the key still holds (semantics §7).
     * Reads the floor only for an event that is not after the key's newest sequence, since every
     * held entry is at or after the floor.
     */
    private boolean isBeforeRetainedHistory(ChangeEvent event, TimelineEntry head)
            throws Exception {
        if (head != null && SequenceCodec.compare(event.sequence(), head.sequence()) > 0) {
            return false;
        }
        byte[] floor = historyFloor.value();
        counter.valueReads++;
        return floor != null && SequenceCodec.compare(event.sequence(), floor) <= 0;
    }

    @Override
    public boolean erase(TimerService timers, List<TargetChange> out) throws Exception {
        timeline.beginEvent(timers.currentProcessingTime());
        for (Object[] row : engine.rows(timeline)) {
            out.add(TargetChange.delete(row));
        }
        boolean whole = historyFloor.value() == null;
        timeline.clear();
        historyFloor.clear();
        pruning.forget(timers);
        tombstones.forget(timers);
        return whole;
    }

    @Override
    public void onTimer(long timestamp, TimerService timers) throws Exception {
        if (pruning.dueAt(timestamp)) {
            prune(timestamp, timers);
        }
        if (tombstones.expiresAt(timestamp)) {
            // The history is in the sink: remember where it ends, so that an older event cannot
            // insert a row whose primary key the sink already holds (it goes to the late events).
            timeline.beginEvent(timestamp);
            TimelineEntry head = timeline.head();
            if (head != null && head.state() != null) {
                return; // it came back while tombstones were kept forever: not forgotten
            }
            raiseFloor(head == null ? null : head.sequence());
            timeline.clear();
            pruning.cancel();
        }
    }

    /** Drops the versions that closed longer ago than the history retention (semantics §7). */
    private void prune(long timestamp, TimerService timers) throws Exception {
        long cutoff = pruning.cutoff(timestamp);
        timeline.beginEvent(timestamp);
        List<TimelineEntry> ascending = timeline.ascending();
        byte[] floor = HistoryRetention.floor(ascending, cutoff);
        if (floor != null) {
            timeline.removeBefore(floor);
            List<TimelineEntry> kept = new ArrayList<>();
            for (TimelineEntry e : ascending) {
                if (SequenceCodec.compare(e.sequence(), floor) >= 0) {
                    kept.add(e);
                }
            }
            raiseFloor(floor);
            ascending = kept;
        }
        pruning.rearm(HistoryRetention.nextDue(ascending, cutoff), timestamp, timers);
    }

    private void raiseFloor(byte[] sequence) throws Exception {
        byte[] floor = historyFloor.value();
        if (sequence != null && (floor == null || SequenceCodec.compare(sequence, floor) > 0)) {
            historyFloor.update(sequence);
        }
    }
}
