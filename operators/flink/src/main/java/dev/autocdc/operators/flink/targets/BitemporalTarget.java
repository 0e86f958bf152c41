package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.BitemporalEngine;
import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.BitemporalRetention;
import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.EngineCounters;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.Iterator;
import java.util.List;
import org.apache.flink.streaming.api.TimerService;

/**
 * Bitemporal history in keyed state ({@link FlinkBitemporalStore}: the belief's timeline in {@value
 * StateNames#BITEMPORAL_RECENT} and {@value StateNames#BITEMPORAL_BLOCKS}, with the key's {@link
 * BitemporalHead}; {@value StateNames#BITEMPORAL_HEAD} for a key whose expired tombstone left no
 * entries; {@value StateNames#BITEMPORAL_SNAPSHOT} once the history retention dropped history),
 * applied to by {@link BitemporalEngine}, with the tombstone and history retentions. The head
 * carries the floors of both retentions, so refusing an event before the retained history costs no
 * read of its own.
 */
final class BitemporalTarget implements KeyedTarget {
    private final BitemporalEngine engine;
    private final BitemporalRetention retention;
    private final FlinkBitemporalStore store;
    private final TombstoneTimer tombstones;
    private final HistoryPruning pruning;

    BitemporalTarget(
            EngineSpec spec,
            KeyedStateAccess states,
            EngineCounters counters,
            StateAccessCounter counter,
            boolean previousRecentLayout) {
        List<ColumnType> types = spec.flow().columnTypes();
        this.engine = new BitemporalEngine(spec.flow(), counters);
        this.retention = new BitemporalRetention(spec.flow());
        FlinkTimeline belief =
                new FlinkTimeline(
                        states.getState(
                                StateDescriptors.bitemporalRecent(types, previousRecentLayout)),
                        states.getMapState(StateDescriptors.bitemporalBlocks(types)),
                        counter,
                        new StateCodec(types),
                        spec.blockSize());
        this.store =
                new FlinkBitemporalStore(
                        belief,
                        states.getState(StateDescriptors.bitemporalHead(types)),
                        states.getState(StateDescriptors.bitemporalSnapshot(types)),
                        counter);
        // Savepoints of pre-release builds hold every event in one map, and a head of another
        // format: registering the map with another serializer makes such a restore fail (the head's
        // serializer refuses the old format by itself) instead of starting every key without its
        // history.
        states.getMapState(StateDescriptors.legacyBitemporalEvents(types));
        this.pruning = new HistoryPruning(states, spec.historyRetention());
        this.tombstones = new TombstoneTimer(states, spec.tombstoneRetention());
    }

    @Override
    public boolean apply(
            ChangeEvent event,
            ChangeEvent truncateFloor,
            TimerService timers,
            List<TargetChange> out)
            throws Exception {
        store.beginEvent(pruning.writeTime(timers));
        BitemporalHead head = store.head();
        if (head != null && head.isBeforeRetainedHistory(event)) {
            return false;
        }
        TimelineEntry newest = store.beliefHead(); // read with the head
        boolean wasTombstone = newest != null && newest.state() == null;
        engine.apply(store, event, out);
        store.finishEvent();
        pruning.schedule(timers);
        newest = store.beliefHead();
        tombstones.track(wasTombstone, newest == null || newest.state() == null, timers, pruning);
        return true;
    }

    @Override
    public boolean erase(TimerService timers, List<TargetChange> out) throws Exception {
        store.beginEvent(timers.currentProcessingTime());
        for (Object[] row : engine.rows(store)) {
            out.add(TargetChange.delete(row));
        }
        BitemporalHead head = store.head();
        boolean whole = store.snapshot() == null && (head == null || head.floorSequence() == null);
        store.erase();
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
            // Both timelines are frozen: a later event must be newer in business and in system time
            // (a correction recorded before the expiry would change beliefs the sink already
            // holds).
            store.beginEvent(timestamp);
            BitemporalHead head = store.head();
            TimelineEntry newest = store.beliefHead();
            if (newest != null && newest.state() != null) {
                return; // it came back while tombstones were kept forever: not forgotten
            }
            store.clear();
            pruning.cancel();
            if (head != null && newest != null) {
                store.setHead(
                        new BitemporalHead(
                                head.latestSystemSequence(),
                                null,
                                newest.sequence(),
                                head.latestSystemSequence()));
            }
        }
    }

    /** Drops the history that is frozen and older than the history retention (semantics §7). */
    private void prune(long timestamp, TimerService timers) throws Exception {
        long cutoff = pruning.cutoff(timestamp);
        store.beginEvent(timestamp);
        retention.compact(store, cutoff);
        store.finishEvent();
        long next = -1;
        for (Iterator<TimelineEntry> it = store.belief().newestFirst(); it.hasNext(); ) {
            long written = it.next().writtenAt();
            if (written > cutoff && (next < 0 || written < next)) {
                next = written;
            }
        }
        pruning.rearm(next, timestamp, timers);
    }
}
