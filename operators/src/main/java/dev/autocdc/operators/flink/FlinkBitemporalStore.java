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
    /** The head as last read or written for the current key. */
    BitemporalHead lastHead;

    FlinkBitemporalStore(ValueState<BitemporalHead> head, MapState<SequenceKey, TimelineEntry> entries,
                         StateAccessCounter counter) {
        this.head = head;
        this.entries = entries;
        this.counter = counter;
    }

    private boolean headRead;

    /** Starts an event: the head is read from state at most once until the next call. */
    void beginEvent() {
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
            entries.put(new SequenceKey(entry.sequence()), entry);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's events", e);
        }
    }
}
