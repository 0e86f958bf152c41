package dev.autocdc.operators.core;

import java.util.Iterator;

/**
 * The store of one key's bitemporal history: every event (grouped per business sequence in
 * {@link TimelineEntry}s whose state is not kept), the {@link BitemporalHead}, and, once the history
 * retention dropped some history, a {@link BitemporalSnapshot}. The rows themselves are not stored: they
 * are a function of the events (and the snapshot).
 */
public interface BitemporalStore {

    BitemporalHead head();

    void setHead(BitemporalHead head);

    /** Every entry, in any order. */
    Iterator<TimelineEntry> entries();

    /** Stores the entry at its sequence, replacing any. */
    void put(TimelineEntry entry);

    /** Removes the entry at a sequence (history retention). */
    void remove(byte[] sequence);

    /** What the history retention kept of the dropped history; null when nothing was dropped. */
    BitemporalSnapshot snapshot();

    void setSnapshot(BitemporalSnapshot snapshot);
}
