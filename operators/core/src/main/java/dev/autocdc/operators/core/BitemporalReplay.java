package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One key's bitemporal table built from its events (semantics §5), the slow path that every other
 * bitemporal computation must agree with: events are replayed in system-time order through an SCD2
 * history of the business timeline; after each system time's events, a version that left the belief
 * (or changed its interval or tracked columns) closes at that system time, a new one opens, and a
 * version that only changed untracked columns is updated in place.
 *
 * <p>With a {@link BitemporalSnapshot} (the history retention dropped history), only the part that
 * can still change is built: the events up to its system floor rebuild the business timeline as
 * believed then (from the seed state, placed before every sequence), its believed rows are the
 * belief then, and the later events replay on top. A replay is used once: build it, {@link #run}
 * it, read it.
 */
final class BitemporalReplay {
    private final Fold fold;
    private final EventOrder order;
    private final BitemporalSnapshot snapshot;
    private final Scd2Engine scd2;
    private final InMemoryTimeline timeline = new InMemoryTimeline();
    private final Map<BitemporalRow.PrimaryKey, BitemporalRow> rows = new HashMap<>();

    /** The rows believed now, by version start. */
    private final TreeMap<byte[], BitemporalRow> believed = new TreeMap<>(SequenceCodec::compare);

    /**
     * The versions changed in the current system time, by start, as they are now (null: removed).
     */
    private final TreeMap<byte[], Version> current = new TreeMap<>(SequenceCodec::compare);

    /**
     * @param snapshot what the history retention kept of dropped history; null when nothing was
     *     dropped
     */
    BitemporalReplay(Flow flow, Fold fold, EventOrder order, BitemporalSnapshot snapshot) {
        this.fold = fold;
        this.order = order;
        this.snapshot = snapshot;
        this.scd2 = new Scd2Engine(flow, EngineCounters.NONE);
    }

    /** The table of the events (any order), by primary key. */
    Map<BitemporalRow.PrimaryKey, BitemporalRow> run(Collection<ChangeEvent> events) {
        List<ChangeEvent> sorted = new ArrayList<>(events);
        sorted.sort(
                (a, b) -> {
                    int c = SequenceCodec.compare(a.systemSequence(), b.systemSequence());
                    return c != 0 ? c : order.compare(a, b);
                });
        int i = 0;
        if (snapshot != null) {
            Object[] seed = snapshot.seedState();
            TimelineEntry seedEntry =
                    new TimelineEntry(
                            new byte[0], List.of(), seed, seed == null ? null : new byte[0]);
            timeline.put(seedEntry);
            timeline.setHead(seedEntry);
            List<ChangeEvent> frozen = new ArrayList<>();
            while (i < sorted.size()
                    && SequenceCodec.compare(
                                    sorted.get(i).systemSequence(), snapshot.floorSystemSequence())
                            <= 0) {
                frozen.add(sorted.get(i++));
            }
            frozen.sort(order);
            List<VersionChange> ignored = new ArrayList<>();
            for (ChangeEvent e : frozen) {
                scd2.applyVersions(timeline, e, ignored);
            }
            for (BitemporalRow row : snapshot.believed()) {
                believed.put(row.version().start(), row);
                rows.put(row.primaryKey(), row);
            }
        }
        while (i < sorted.size()) {
            byte[] t = sorted.get(i).systemSequence();
            // the versions touched in this system time, as they were before it (null: did not
            // exist)
            TreeMap<byte[], Version> touched = new TreeMap<>(SequenceCodec::compare);
            while (i < sorted.size() && Arrays.equals(sorted.get(i).systemSequence(), t)) {
                ChangeEvent e = sorted.get(i++);
                List<VersionChange> changes = new ArrayList<>();
                scd2.applyVersions(timeline, e, changes);
                for (VersionChange c : changes) {
                    if (!touched.containsKey(c.start())) {
                        touched.put(c.start(), c.before());
                    }
                    current.put(c.start(), c.after());
                }
            }
            for (byte[] start : touched.keySet()) {
                Version now = current.get(start);
                BitemporalRow open = believed.get(start);
                if (open != null && now != null && sameIdentity(fold, open.version(), now)) {
                    if (!Values.sameRow(open.version().row(), now.row())) {
                        BitemporalRow updated = open.withVersion(now);
                        believed.put(start, updated);
                        rows.put(updated.primaryKey(), updated);
                    }
                    continue;
                }
                if (open != null) {
                    believed.remove(start);
                    BitemporalRow closed = open.closedAt(t);
                    rows.put(closed.primaryKey(), closed);
                }
                if (now != null) {
                    BitemporalRow opened = new BitemporalRow(now, t, null);
                    believed.put(start, opened);
                    rows.put(opened.primaryKey(), opened);
                }
            }
            current.clear();
        }
        return rows;
    }

    /**
     * After {@link #run}: the rows believed at the greatest system time replayed, by version start.
     */
    TreeMap<byte[], BitemporalRow> believed() {
        return believed;
    }

    /**
     * After {@link #run}: the business timeline as believed at the greatest system time replayed.
     */
    InMemoryTimeline timeline() {
        return timeline;
    }

    /**
     * Same interval and tracked columns: the same row of history, whose untracked columns may
     * differ.
     */
    static boolean sameIdentity(Fold fold, Version a, Version b) {
        return Arrays.equals(a.start(), b.start())
                && Arrays.equals(a.end(), b.end())
                && fold.sameTracked(a.row(), b.row());
    }
}
