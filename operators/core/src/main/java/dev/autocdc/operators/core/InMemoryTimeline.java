package dev.autocdc.operators.core;

import java.util.Iterator;
import java.util.TreeMap;

/** A {@link Timeline} in a sorted map: for tests and for the bitemporal replay. */
public final class InMemoryTimeline implements Timeline {
    private final TreeMap<byte[], TimelineEntry> entries = new TreeMap<>(SequenceCodec::compare);
    private TimelineEntry head;

    @Override
    public TimelineEntry head() {
        return head;
    }

    @Override
    public Iterator<TimelineEntry> newestFirst() {
        return entries.descendingMap().values().iterator();
    }

    @Override
    public void put(TimelineEntry entry) {
        entries.put(entry.sequence(), entry);
    }

    @Override
    public void setHead(TimelineEntry entry) {
        head = entry;
    }

    public int size() {
        return entries.size();
    }

    /** Drops every entry before {@code floor}. */
    public void removeBefore(byte[] floor) {
        entries.headMap(floor, false).clear();
    }

    /** All entries, ascending. */
    public Iterable<TimelineEntry> ascending() {
        return entries.values();
    }
}
