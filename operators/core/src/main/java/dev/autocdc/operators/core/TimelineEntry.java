package dev.autocdc.operators.core;

import java.util.Arrays;
import java.util.List;

/**
 * What a key's history holds at one business sequence: the events at that sequence (ascending,
 * without duplicates; for full-row SCD2 flows only the greatest, the only one that matters), the
 * state after them (null = absent), and the start of the version (run of equal tracked columns)
 * that state belongs to. Bitemporal beliefs also record, on the entry where a closed version ends,
 * the system time its believed row starts at ({@link #believedSince()}). Immutable.
 */
public final class TimelineEntry {
    private final byte[] sequence;
    private final List<ChangeEvent> events;
    private final Object[] state;
    private final byte[] versionStart;
    private final long writtenAt;
    private final byte[] believedSince;

    public TimelineEntry(
            byte[] sequence, List<ChangeEvent> events, Object[] state, byte[] versionStart) {
        this(sequence, events, state, versionStart, 0L, null);
    }

    public TimelineEntry(
            byte[] sequence,
            List<ChangeEvent> events,
            Object[] state,
            byte[] versionStart,
            long writtenAt,
            byte[] believedSince) {
        this.sequence = sequence;
        this.events = List.copyOf(events);
        this.state = state;
        this.versionStart = versionStart;
        this.writtenAt = writtenAt;
        this.believedSince = believedSince;
    }

    /** The same entry, stamped with the (processing) time it is stored at. */
    public TimelineEntry stampedAt(long time) {
        return new TimelineEntry(sequence, events, state, versionStart, time, believedSince);
    }

    /**
     * The same sequence and events (and system start) with another state and version start, not
     * stamped.
     */
    public TimelineEntry withState(Object[] newState, byte[] newVersionStart) {
        return new TimelineEntry(sequence, events, newState, newVersionStart, 0L, believedSince);
    }

    /** The same entry recording another system start (null: none), not stamped. */
    public TimelineEntry withBelievedSince(byte[] since) {
        return new TimelineEntry(sequence, events, state, versionStart, 0L, since);
    }

    /**
     * Bitemporal beliefs only: when a closed version of the current belief ends at this entry (the
     * next version starts here, or the key is absent here), the system sequence that version's
     * believed row starts at; otherwise null.
     */
    public byte[] believedSince() {
        return believedSince;
    }

    /** When the store last wrote this entry (processing time, ms), 0 if never stamped. */
    public long writtenAt() {
        return writtenAt;
    }

    /** Whether a version ends here: the key is absent, or a new version starts at this entry. */
    public boolean isVersionBoundary() {
        return state == null || Arrays.equals(versionStart, sequence);
    }

    public byte[] sequence() {
        return sequence;
    }

    public List<ChangeEvent> events() {
        return events;
    }

    /** The key's state after every event up to this sequence; null when absent. */
    public Object[] state() {
        return state;
    }

    /**
     * The sequence where the version holding {@link #state()} starts; null when the state is
     * absent.
     */
    public byte[] versionStart() {
        return versionStart;
    }

    /**
     * Whether the state is exactly the last event's row (so storage can skip it). Exact: -0.0
     * differs from 0.0 and 1.0 from 1.00 here, although the engine compares them as equal, so that
     * a restored state is the stored one.
     */
    public boolean stateIsLastEventRow() {
        ChangeEvent last = events.get(events.size() - 1);
        return last.isUpsert()
                ? state == last.row() || Arrays.deepEquals(state, last.row())
                : state == null;
    }
}
