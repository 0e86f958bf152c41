package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The store of one key's {@link TimelineEntry}s, keyed by business sequence. The Flink operator
 * backs it with keyed state (a ValueState for the head, a MapState for the entries); tests and the
 * bitemporal replay use {@link InMemoryTimeline}. The engine reads the head for every event; a late
 * event reads {@link #ascendingFrom} where it lands and only as far forward as its refold changes
 * entries.
 */
public interface Timeline {

    /** The entry with the greatest sequence, or null when the key has no history. */
    TimelineEntry head();

    /** Entries by descending sequence, the head first. The engine may stop early. */
    Iterator<TimelineEntry> newestFirst();

    /** Stores an entry (replacing the one at its sequence). Does not change the head. */
    void put(TimelineEntry entry);

    /** Sets the head; the engine also {@link #put}s it. */
    void setHead(TimelineEntry entry);

    /**
     * Entries by ascending sequence, from the last one before {@code sequence} (when there is one)
     * on. The engine may stop early, so a store should read only where the sequence lands and then
     * as far forward as the iterator is advanced. This default walks {@link #newestFirst()} back to
     * the sequence.
     */
    default Iterator<TimelineEntry> ascendingFrom(byte[] sequence) {
        List<TimelineEntry> entries = new ArrayList<>();
        for (Iterator<TimelineEntry> it = newestFirst(); it.hasNext(); ) {
            TimelineEntry entry = it.next();
            entries.add(entry);
            if (SequenceCodec.compare(entry.sequence(), sequence) < 0) {
                break;
            }
        }
        Collections.reverse(entries);
        return entries.iterator();
    }

    /**
     * The entry at {@code sequence}, or null when there is none. This default walks {@link
     * #newestFirst()}.
     */
    default TimelineEntry entryAt(byte[] sequence) {
        for (Iterator<TimelineEntry> it = newestFirst(); it.hasNext(); ) {
            TimelineEntry entry = it.next();
            int c = SequenceCodec.compare(entry.sequence(), sequence);
            if (c <= 0) {
                return c == 0 ? entry : null;
            }
        }
        return null;
    }
}
