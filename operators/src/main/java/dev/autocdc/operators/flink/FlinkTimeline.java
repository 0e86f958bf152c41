package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.Timeline;
import dev.autocdc.operators.core.TimelineEntry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * A {@link Timeline} (and the event store of a bitemporal key) in keyed state: the head in a
 * ValueState, every entry in a MapState whose keys serialize newest-first
 * ({@link DescendingSequenceKeySerializer}). On a backend that iterates in key order the walk back reads
 * only the entries it needs; on the heap backend it reads all and sorts.
 */
final class FlinkTimeline implements Timeline {
    private final ValueState<TimelineEntry> head;
    private final MapState<SequenceKey, TimelineEntry> entries;
    private final boolean ordered;
    private final StateAccessCounter counter;
    /** The processing time stamped on written entries; set by the operator before each event. */
    long now;
    /** The head as last read or written for the current key. */
    TimelineEntry lastHead;

    FlinkTimeline(ValueState<TimelineEntry> head, MapState<SequenceKey, TimelineEntry> entries, boolean ordered,
                  StateAccessCounter counter) {
        this.head = head;
        this.entries = entries;
        this.ordered = ordered;
        this.counter = counter;
    }

    private boolean headRead;

    /** Starts an event: the head is read from state at most once until the next call. */
    void beginEvent(long time) {
        now = time;
        headRead = false;
    }

    @Override
    public TimelineEntry head() {
        if (headRead) {
            return lastHead;
        }
        try {
            counter.valueReads++;
            lastHead = head.value();
            headRead = true;
            return lastHead;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's history head", e);
        }
    }

    @Override
    public Iterator<TimelineEntry> newestFirst() {
        try {
            Iterator<TimelineEntry> it;
            if (ordered) {
                it = entries.values().iterator();
            } else {
                List<TimelineEntry> all = new ArrayList<>();
                for (TimelineEntry e : entries.values()) {
                    all.add(e);
                }
                all.sort((a, b) -> SequenceCodec.compare(b.sequence(), a.sequence()));
                counter.iteratorSteps += all.size();
                it = all.iterator();
            }
            Iterator<TimelineEntry> source = it;
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return source.hasNext();
                }

                @Override
                public TimelineEntry next() {
                    if (ordered) {
                        counter.iteratorSteps++;
                    }
                    return source.next();
                }
            };
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the key's history", e);
        }
    }

    @Override
    public void put(TimelineEntry entry) {
        try {
            counter.mapWrites++;
            entries.put(new SequenceKey(entry.sequence()), entry.stampedAt(now));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's history", e);
        }
    }

    /** Every entry, ascending (for retention: reads the whole key). */
    List<TimelineEntry> ascending() throws Exception {
        List<TimelineEntry> all = new ArrayList<>();
        for (TimelineEntry e : entries.values()) {
            all.add(e);
        }
        all.sort((a, b) -> SequenceCodec.compare(a.sequence(), b.sequence()));
        return all;
    }

    void remove(byte[] sequence) throws Exception {
        entries.remove(new SequenceKey(sequence));
    }

    @Override
    public void setHead(TimelineEntry entry) {
        try {
            counter.valueWrites++;
            lastHead = entry.stampedAt(now);
            head.update(lastHead);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write the key's history head", e);
        }
    }
}
