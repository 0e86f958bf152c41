package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.BitemporalSnapshot;
import dev.autocdc.operators.core.BitemporalStore;
import dev.autocdc.operators.core.Timeline;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * A {@link BitemporalStore} in keyed state: the belief in a {@link FlinkTimeline} (blocks of entries, as
 * SCD2 keeps them), the head in a ValueState, the system starts of closed versions in a MapState keyed by
 * version start, the snapshot in a ValueState. An event in system order reads the timeline's recent
 * entries and the head, and writes them and at most one system start per version it changed.
 */
final class FlinkBitemporalStore implements BitemporalStore {
    private final FlinkTimeline belief;
    private final ValueState<BitemporalHead> head;
    private final MapState<SequenceKey, byte[]> since;
    private final ValueState<BitemporalSnapshot> snapshot;
    private final StateAccessCounter counter;

    private boolean headRead;
    private BitemporalHead lastHead;

    FlinkBitemporalStore(FlinkTimeline belief, ValueState<BitemporalHead> head, MapState<SequenceKey, byte[]> since,
                         ValueState<BitemporalSnapshot> snapshot, StateAccessCounter counter) {
        this.belief = belief;
        this.head = head;
        this.since = since;
        this.snapshot = snapshot;
        this.counter = counter;
    }

    /** Starts an event (or a timer) of the current key: state is read again, at most once. */
    void beginEvent(long time) {
        belief.beginEvent(time);
        headRead = false;
        lastHead = null;
    }

    /** Writes what the current event changed in the belief (the head and system starts are written at once). */
    void finishEvent() {
        belief.finishEvent();
    }

    /** The belief's newest entry as last read or written (null: the key has none). */
    dev.autocdc.operators.core.TimelineEntry beliefHead() {
        return belief.head();
    }

    @Override
    public Timeline belief() {
        return belief;
    }

    @Override
    public BitemporalHead head() {
        if (headRead) {
            return lastHead;
        }
        try {
            counter.valueReads++;
            lastHead = head.value();
            headRead = true;
            return lastHead;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's bitemporal head", e);
        }
    }

    @Override
    public void setHead(BitemporalHead h) {
        try {
            counter.valueWrites++;
            lastHead = h;
            headRead = true;
            head.update(h);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's bitemporal head", e);
        }
    }

    @Override
    public byte[] believedSince(byte[] versionStart) {
        try {
            counter.iteratorSteps++; // a map point read
            return since.get(new SequenceKey(versionStart));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's system starts", e);
        }
    }

    @Override
    public void setBelievedSince(byte[] versionStart, byte[] systemStart) {
        try {
            counter.mapWrites++;
            if (systemStart == null) {
                since.remove(new SequenceKey(versionStart));
            } else {
                since.put(new SequenceKey(versionStart), systemStart);
            }
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's system starts", e);
        }
    }

    @Override
    public void removeBefore(byte[] floor) {
        try {
            belief.removeBefore(floor);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot drop the key's history", e);
        }
    }

    @Override
    public BitemporalSnapshot snapshot() {
        try {
            return snapshot.value();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's retained history", e);
        }
    }

    @Override
    public void setSnapshot(BitemporalSnapshot s) {
        try {
            snapshot.update(s);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's retained history", e);
        }
    }

    /** Forgets the key's whole history (a tombstone expired); the head is set by the caller. */
    void clear() {
        belief.clear();
        since.clear();
        snapshot.clear();
    }
}
