package dev.autocdc.operators.core;

import java.util.Iterator;

/**
 * A {@link BitemporalStore} in memory, for tests and benchmarks: the belief in an {@link
 * InMemoryTimeline}, each entry stamped when written with the time last given to {@link #stampAt}
 * (0 until then), as a Flink store stamps it with the processing time.
 */
public final class InMemoryBitemporalStore implements BitemporalStore {
    private final InMemoryTimeline entries = new InMemoryTimeline();
    private BitemporalHead head;
    private BitemporalSnapshot snapshot;
    private long now;

    private final Timeline belief =
            new Timeline() {
                @Override
                public TimelineEntry head() {
                    return entries.head();
                }

                @Override
                public Iterator<TimelineEntry> newestFirst() {
                    return entries.newestFirst();
                }

                @Override
                public void put(TimelineEntry entry) {
                    entries.put(entry.stampedAt(now));
                }

                @Override
                public void setHead(TimelineEntry entry) {
                    entries.setHead(entry.stampedAt(now));
                }
            };

    /** The time the entries written from now on are stamped with. */
    public void stampAt(long time) {
        now = time;
    }

    @Override
    public Timeline belief() {
        return belief;
    }

    @Override
    public void removeBefore(byte[] floor) {
        entries.removeBefore(floor);
    }

    @Override
    public BitemporalSnapshot snapshot() {
        return snapshot;
    }

    @Override
    public void setSnapshot(BitemporalSnapshot s) {
        snapshot = s;
    }

    @Override
    public BitemporalHead head() {
        return head;
    }

    @Override
    public void setHead(BitemporalHead h) {
        head = h;
    }
}
