package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.BitemporalStore;
import dev.autocdc.operators.core.TimelineEntry;
import java.util.Iterator;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/** A {@link BitemporalStore} in keyed state: the head in a ValueState, the events in a MapState. */
final class FlinkBitemporalStore implements BitemporalStore {
    private final ValueState<BitemporalHead> head;
    private final MapState<SequenceKey, TimelineEntry> entries;
    private final StateAccessCounter counter;
    private final ValueState<dev.autocdc.operators.core.BitemporalSnapshot> snapshot;
    /** The processing time stamped on written entries; set by the operator before each event. */
    long now;
    /** The head as last read or written for the current key. */
    BitemporalHead lastHead;

    FlinkBitemporalStore(ValueState<BitemporalHead> head, MapState<SequenceKey, TimelineEntry> entries,
                         ValueState<dev.autocdc.operators.core.BitemporalSnapshot> snapshot, StateAccessCounter counter) {
        this.head = head;
        this.entries = entries;
        this.snapshot = snapshot;
        this.counter = counter;
    }

    private boolean headRead;

    /** Starts an event: the head is read from state at most once until the next call. */
    void beginEvent(long time) {
        now = time;
        headRead = false;
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
            head.update(h);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's bitemporal head", e);
        }
    }

    @Override
    public Iterator<TimelineEntry> entries() {
        try {
            Iterator<TimelineEntry> it = entries.values().iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public TimelineEntry next() {
                    counter.iteratorSteps++;
                    return it.next();
                }
            };
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's events", e);
        }
    }

    @Override
    public void put(TimelineEntry entry) {
        try {
            counter.mapWrites++;
            entries.put(new SequenceKey(entry.sequence()), entry.stampedAt(now));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's events", e);
        }
    }

    @Override
    public void remove(byte[] sequence) {
        try {
            entries.remove(new SequenceKey(sequence));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot drop the key's events", e);
        }
    }

    @Override
    public dev.autocdc.operators.core.BitemporalSnapshot snapshot() {
        try {
            return snapshot.value();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's retained history", e);
        }
    }

    @Override
    public void setSnapshot(dev.autocdc.operators.core.BitemporalSnapshot s) {
        try {
            snapshot.update(s);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's retained history", e);
        }
    }
}
