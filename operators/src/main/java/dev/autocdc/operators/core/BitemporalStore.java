package dev.autocdc.operators.core;

import java.util.Iterator;

/**
 * The store of one key's bitemporal history: every event (grouped per business sequence in
 * {@link TimelineEntry}s whose state is not kept) and the {@link BitemporalHead}. The rows themselves are
 * not stored: they are a function of the events.
 */
public interface BitemporalStore {

    BitemporalHead head();

    void setHead(BitemporalHead head);

    /** Every entry, in any order. */
    Iterator<TimelineEntry> entries();

    /** Stores the entry at its sequence, replacing any. */
    void put(TimelineEntry entry);
}
