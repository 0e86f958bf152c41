package dev.autocdc.operators.core;

import java.util.Iterator;

/**
 * The store of one key's {@link TimelineEntry}s, keyed by business sequence. The Flink operator backs
 * it with keyed state (a ValueState for the head, a MapState for the entries); tests and the
 * bitemporal replay use {@link InMemoryTimeline}. The engine reads the head for every event and walks
 * {@link #newestFirst()} only as far back as a late event lands.
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
}
