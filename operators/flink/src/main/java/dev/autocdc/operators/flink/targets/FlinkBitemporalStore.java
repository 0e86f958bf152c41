package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.BitemporalSnapshot;
import dev.autocdc.operators.core.BitemporalStore;
import dev.autocdc.operators.core.Timeline;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import org.apache.flink.api.common.state.ValueState;

/**
 * A {@link BitemporalStore} in keyed state: the belief in a {@link FlinkTimeline} (blocks of
 * entries, as SCD2 keeps them, with the system starts of closed versions on their entries), the
 * head stored with the timeline's recent entries, and the snapshot in a ValueState. An event in
 * system order reads and writes one value, the recent entries, as an SCD2 event does. A key whose
 * history was forgotten (its tombstone expired) keeps its head, with the floors, in a ValueState of
 * its own until it has entries again.
 */
public final class FlinkBitemporalStore implements BitemporalStore {
    private final FlinkTimeline belief;

    /** The head of a key without entries (null otherwise). */
    private final ValueState<BitemporalHead> head;

    private final ValueState<BitemporalSnapshot> snapshot;
    private final StateAccessCounter counter;

    private boolean headRead;
    private BitemporalHead lastHead;

    /**
     * Whether the current key's head came from {@link #head} (so it is cleared once stored with
     * entries).
     */
    private boolean headWasKeptApart;

    FlinkBitemporalStore(
            FlinkTimeline belief,
            ValueState<BitemporalHead> head,
            ValueState<BitemporalSnapshot> snapshot,
            StateAccessCounter counter) {
        this.belief = belief;
        this.head = head;
        this.snapshot = snapshot;
        this.counter = counter;
    }

    /** Starts an event (or a timer) of the current key: state is read again, at most once. */
    void beginEvent(long time) {
        belief.beginEvent(time);
        headRead = false;
        lastHead = null;
        headWasKeptApart = false;
    }

    /**
     * Writes what the current event changed in the belief (the head and system starts are written
     * at once).
     */
    void finishEvent() {
        belief.finishEvent();
    }

    /** The belief's newest entry as last read or written (null: the key has none). */
    TimelineEntry beliefHead() {
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
        lastHead = belief.recentHead();
        if (lastHead == null && belief.head() == null) {
            try {
                counter.valueReads++;
                lastHead = head.value();
                headWasKeptApart = lastHead != null;
            } catch (Exception e) {
                throw new IllegalStateException("Cannot read the key's bitemporal head", e);
            }
        }
        headRead = true;
        return lastHead;
    }

    @Override
    public void setHead(BitemporalHead h) {
        lastHead = h;
        headRead = true;
        try {
            if (belief.setRecentHead(h)) {
                if (headWasKeptApart) {
                    head.clear();
                    headWasKeptApart = false;
                }
            } else {
                counter.valueWrites++;
                head.update(h);
                headWasKeptApart = true;
            }
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's bitemporal head", e);
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

    /** Forgets the key: its history, its retained snapshot and its head. */
    void erase() {
        clear();
        head.clear();
        lastHead = null;
        headRead = false;
    }

    /** Forgets the key's whole history (a tombstone expired); the head is set by the caller. */
    void clear() {
        belief.clear();
        snapshot.clear();
    }
}
