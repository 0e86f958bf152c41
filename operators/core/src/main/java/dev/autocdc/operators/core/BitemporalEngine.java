package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bitemporal history (SPEC §5) for one key.
 *
 * <p>The key's store holds its current belief as an SCD2 timeline of every event (the table believed at
 * the greatest system time is the SCD2 history of all events), plus the system time each version of it
 * is believed from: on the entry where a closed version ends, and in the head for the open version.
 *
 * <p>In-order path: an event after the key's greatest system sequence (late or not in business time)
 * changes the belief as one SCD2 event does, at the same cost, and every version it changed is one row
 * transition in system time: the believed row closes at the event's system time and the new version's
 * row opens there; a version whose tracked columns and interval stay the same is updated in place. An
 * event at the greatest system sequence takes this path too when it is after the greatest business
 * sequence and only rows believed from that very system time can change (they are replaced).
 *
 * <p>Any other event (late in system time, or a tie with the greatest system sequence) recomputes the
 * key's table from its events with {@link #table}, before and after the event, and emits the difference:
 * rows split, their system end moved, or removed (SPEC §13 D and G).
 */
public final class BitemporalEngine {
    private final Flow flow;
    private final Fold fold;
    private final EventOrder order;
    /** Keeps the current belief; every event at a sequence is kept for the past beliefs. */
    private final Scd2Engine belief;
    private final EngineCounters counters = new EngineCounters();

    public BitemporalEngine(Flow flow) {
        this.flow = flow;
        this.fold = new Fold(flow);
        this.order = new EventOrder(flow);
        this.belief = new Scd2Engine(flow, true);
    }

    public EngineCounters counters() {
        return counters;
    }

    /** Applies one event; appends changes of target rows (base, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT). */
    public void apply(BitemporalStore store, ChangeEvent event, List<TargetChange> out) {
        BitemporalHead head = store.head();
        TimelineEntry top = store.belief().head();
        if (isInSystemOrder(head, top, event)) {
            if (top != null && SequenceCodec.compare(event.sequence(), top.sequence()) < 0) {
                counters.late++;
            }
            applyInSystemOrder(store, head, event, out);
        } else {
            if ((top != null && SequenceCodec.compare(event.sequence(), top.sequence()) < 0)
                    || SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence()) < 0) {
                counters.late++;
            }
            recompute(store, head, event, out);
        }
    }

    /**
     * Whether the event is after the key's greatest system sequence, or at it, after the greatest business
     * sequence, with no open version believed from before it: then only rows believed from that system
     * time can change (they are replaced), and rows that stopped being believed at it stay as they are.
     */
    private static boolean isInSystemOrder(BitemporalHead head, TimelineEntry top, ChangeEvent event) {
        if (head == null) {
            return true;
        }
        int system = SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence());
        if (system != 0) {
            return system > 0;
        }
        return top == null || (SequenceCodec.compare(event.sequence(), top.sequence()) > 0
                && (top.state() == null || Arrays.equals(head.openSystemStart(), event.systemSequence())));
    }

    /**
     * The event changes the belief as an SCD2 event; each changed version's believed row closes at the
     * event's system time t (or is replaced, when believed from t) and the new version is believed from t.
     */
    private void applyInSystemOrder(BitemporalStore store, BitemporalHead head, ChangeEvent event, List<TargetChange> out) {
        byte[] t = event.systemSequence();
        List<VersionChange> changes = new ArrayList<>(3);
        long duplicates = belief.counters().duplicates();
        long ties = belief.counters().conflictingTies();
        belief.apply(store.belief(), event, changes);
        counters.duplicates += belief.counters().duplicates() - duplicates;
        counters.conflictingTies += belief.counters().conflictingTies() - ties;

        // Read first: each changed version's believed row, its system start from the head (open) or from
        // the entry where it ends (closed), which the SCD2 step has just read or written.
        List<BitemporalRow> believed = new ArrayList<>(changes.size());
        for (VersionChange c : changes) {
            Version before = c.before();
            byte[] since = before == null ? null
                    : before.isOpen() ? head.openSystemStart() : entryAt(store.belief(), before.end()).believedSince();
            if (before != null && since == null) {
                throw new IllegalStateException("The key's state has no system start for a believed version");
            }
            believed.add(before == null ? null : new BitemporalRow(before, since, null));
        }
        byte[] openSince = head == null ? null : head.openSystemStart();
        boolean openSet = false;
        // where closed versions end now, and the system start of each (null: no version ends there any more)
        TreeMap<byte[], byte[]> ends = new TreeMap<>(SequenceCodec::compare);
        for (int i = 0; i < changes.size(); i++) {
            Version before = changes.get(i).before();
            Version after = changes.get(i).after();
            BitemporalRow was = believed.get(i);
            if (was != null && after != null && sameIdentity(before, after)) {
                // Same version, untracked columns change in place (they have no history).
                if (!Values.sameRow(before.row(), after.row())) {
                    emit(out, was, was.withVersion(after));
                }
                continue;
            }
            BitemporalRow now = after == null ? null : new BitemporalRow(after, t, null);
            if (was != null && Arrays.equals(was.systemStart(), t)) {
                emit(out, was, now); // believed only from t: it never was, replace it
            } else {
                if (was != null) {
                    emit(out, was, was.closedAt(t));
                }
                if (now != null) {
                    emit(out, null, now);
                }
            }
            if (before != null && !before.isOpen()) {
                ends.putIfAbsent(before.end(), null);
            }
            if (after != null && after.isOpen()) {
                openSince = t;
                openSet = true;
            } else if (after != null) {
                ends.put(after.end(), t);
            }
            if (before != null && before.isOpen() && !openSet) {
                openSince = null;
            }
        }
        ends.forEach((end, since) -> recordSince(store.belief(), end, since));
        byte[] latest = head == null || SequenceCodec.compare(t, head.latestSystemSequence()) > 0 ? t : head.latestSystemSequence();
        store.setHead(new BitemporalHead(latest, openSince, head == null ? null : head.floorSequence(),
                head == null ? null : head.floorSystemSequence()));
    }

    /** The belief's entry at a sequence (where a version ends: it exists). */
    private static TimelineEntry entryAt(Timeline belief, byte[] sequence) {
        TimelineEntry entry = belief.entryAt(sequence);
        if (entry == null) {
            throw new IllegalStateException("The key's belief has no entry where one of its versions ends");
        }
        return entry;
    }

    /**
     * Records on the entry where a closed version ends the system start of that version's believed row
     * (null: no version ends there). At most one version ends at an entry, and that entry is among those
     * the SCD2 step read or wrote, so recording costs no state access of its own.
     */
    private static void recordSince(Timeline belief, byte[] end, byte[] since) {
        TimelineEntry entry = entryAt(belief, end);
        if (Arrays.equals(entry.believedSince(), since)) {
            return;
        }
        TimelineEntry recorded = entry.withBelievedSince(since);
        belief.put(recorded);
        if (Arrays.equals(belief.head().sequence(), end)) {
            belief.setHead(recorded);
        }
    }

    private void recompute(BitemporalStore store, BitemporalHead head, ChangeEvent event, List<TargetChange> out) {
        List<ChangeEvent> events = new ArrayList<>();
        TimelineEntry at = null;
        for (Iterator<TimelineEntry> it = store.belief().newestFirst(); it.hasNext(); ) {
            TimelineEntry entry = it.next();
            events.addAll(entry.events());
            if (Arrays.equals(entry.sequence(), event.sequence())) {
                at = entry;
            }
        }
        for (ChangeEvent e : at == null ? List.<ChangeEvent>of() : at.events()) {
            if (order.compareAtSameSequence(e, event) == 0) {
                counters.duplicates++;
                return; // exact duplicate
            }
            if (Arrays.equals(e.systemSequence(), event.systemSequence())) {
                counters.conflictingTies++;
            }
        }
        BitemporalSnapshot snapshot = store.snapshot();
        Replay was = new Replay(snapshot);
        Map<BitemporalRow.PrimaryKey, BitemporalRow> before = was.run(events);
        events.add(event);
        Replay replay = new Replay(snapshot);
        Map<BitemporalRow.PrimaryKey, BitemporalRow> after = replay.run(events);

        TreeMap<BitemporalRow.PrimaryKey, BitemporalRow[]> pairs = new TreeMap<>();
        before.forEach((k, r) -> pairs.computeIfAbsent(k, x -> new BitemporalRow[2])[0] = r);
        after.forEach((k, r) -> pairs.computeIfAbsent(k, x -> new BitemporalRow[2])[1] = r);
        for (BitemporalRow[] pair : pairs.values()) {
            if (pair[0] == null || pair[1] == null || !pair[0].sameAs(pair[1])) {
                emit(out, pair[0], pair[1]);
            }
        }

        // The belief is the SCD2 history of every event, whatever their order: the event joins it as one more.
        belief.apply(store.belief(), event, new ArrayList<VersionChange>(2));
        byte[] openSince = null;
        TreeMap<byte[], byte[]> ends = new TreeMap<>(SequenceCodec::compare);
        for (BitemporalRow row : was.believed.values()) {
            if (!row.version().isOpen()) {
                ends.put(row.version().end(), null);
            }
        }
        for (BitemporalRow row : replay.believed.values()) {
            if (row.version().isOpen()) {
                openSince = row.systemStart();
            } else {
                ends.put(row.version().end(), row.systemStart());
            }
        }
        ends.forEach((end, since) -> recordSince(store.belief(), end, since));
        byte[] latest = SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence()) > 0
                ? event.systemSequence() : head.latestSystemSequence();
        store.setHead(new BitemporalHead(latest, openSince, head.floorSequence(), head.floorSystemSequence()));
    }

    /** The whole bitemporal table of one key's events (any order), by primary key. */
    public Map<BitemporalRow.PrimaryKey, BitemporalRow> table(Collection<ChangeEvent> events) {
        return new Replay(null).run(events);
    }

    /**
     * History retention (SPEC §7): drops the history that is frozen and older than {@code cutoff}, keeping
     * a {@link BitemporalSnapshot}. The system floor T becomes the newest system sequence whose events
     * (and all before it) were written at or before the cutoff; the business floor F the newest version
     * boundary of the belief at T that no event recorded after T precedes. Entries before F leave the
     * store. Returns whether anything was dropped.
     */
    public boolean compact(BitemporalStore store, long cutoff) {
        BitemporalSnapshot old = store.snapshot();
        List<ChangeEvent> events = new ArrayList<>();
        List<Long> written = new ArrayList<>();
        for (Iterator<TimelineEntry> it = store.belief().newestFirst(); it.hasNext(); ) {
            TimelineEntry entry = it.next();
            for (ChangeEvent e : entry.events()) {
                events.add(e);
                written.add(entry.writtenAt());
            }
        }
        // T: the newest system sequence up to which every event is old enough
        Integer[] bySystem = new Integer[events.size()];
        for (int i = 0; i < bySystem.length; i++) {
            bySystem[i] = i;
        }
        Arrays.sort(bySystem, (a, b) -> SequenceCodec.compare(events.get(a).systemSequence(), events.get(b).systemSequence()));
        byte[] floorSystem = null;
        for (int i = 0; i < bySystem.length; ) {
            byte[] t = events.get(bySystem[i]).systemSequence();
            boolean allOld = true;
            int j = i;
            while (j < bySystem.length && Arrays.equals(events.get(bySystem[j]).systemSequence(), t)) {
                allOld &= written.get(bySystem[j]) <= cutoff;
                j++;
            }
            if (!allOld) {
                break;
            }
            floorSystem = t;
            i = j;
        }
        if (floorSystem == null || (old != null && SequenceCodec.compare(floorSystem, old.floorSystemSequence()) <= 0)) {
            return false;
        }
        byte[] firstAfter = null; // the smallest business sequence recorded after T
        List<ChangeEvent> upToT = new ArrayList<>();
        for (ChangeEvent e : events) {
            if (SequenceCodec.compare(e.systemSequence(), floorSystem) <= 0) {
                upToT.add(e);
            } else if (firstAfter == null || SequenceCodec.compare(e.sequence(), firstAfter) < 0) {
                firstAfter = e.sequence();
            }
        }
        Replay atT = new Replay(old);
        atT.run(upToT);
        // F: the newest boundary of the belief at T before firstAfter (and after the old floor)
        byte[] floor = null;
        Object[] seed = null;
        Object[] previousState = null;
        boolean hasPrevious = false;
        for (TimelineEntry entry : atT.timeline.ascending()) {
            if (entry.sequence().length == 0) {
                previousState = entry.state(); // the old snapshot's seed
                continue;
            }
            if (firstAfter != null && SequenceCodec.compare(entry.sequence(), firstAfter) >= 0) {
                break;
            }
            if (hasPrevious && entry.isVersionBoundary()
                    && (old == null || SequenceCodec.compare(entry.sequence(), old.floorSequence()) > 0)) {
                floor = entry.sequence();
                seed = previousState;
            }
            previousState = entry.state();
            hasPrevious = true;
        }
        if (floor == null) {
            return false;
        }
        List<BitemporalRow> believed = new ArrayList<>();
        for (BitemporalRow row : atT.believed.values()) {
            if (SequenceCodec.compare(row.version().start(), floor) >= 0) {
                believed.add(row);
            }
        }
        // the versions of the belief that start before F end at or before it: they leave with their entries
        store.removeBefore(floor);
        store.setSnapshot(new BitemporalSnapshot(floor, floorSystem, seed, believed));
        BitemporalHead head = store.head();
        store.setHead(head.withFloors(floor, floorSystem));
        return true;
    }

    private void emit(List<TargetChange> out, BitemporalRow before, BitemporalRow after) {
        SequenceCodec b = flow.sequenceCodec();
        SequenceCodec s = flow.systemSequenceCodec();
        if (before == null) {
            out.add(TargetChange.insert(after.toTargetRow(b, s)));
        } else if (after == null) {
            out.add(TargetChange.delete(before.toTargetRow(b, s)));
        } else {
            out.add(TargetChange.update(before.toTargetRow(b, s), after.toTargetRow(b, s)));
        }
    }

    /**
     * Builds the table by replaying events in system-time order through an SCD2 history of the business
     * timeline: after each system time's events, a version that left the belief (or changed its
     * interval or tracked columns) closes at that system time, a new one opens, and a version that only
     * changed untracked columns is updated in place.
     */
    private final class Replay {
        private final BitemporalSnapshot snapshot;
        private final Scd2Engine scd2 = new Scd2Engine(flow);
        private final InMemoryTimeline timeline = new InMemoryTimeline();
        private final Map<BitemporalRow.PrimaryKey, BitemporalRow> rows = new java.util.HashMap<>();
        /** The rows believed now, by version start. */
        private final TreeMap<byte[], BitemporalRow> believed = new TreeMap<>(SequenceCodec::compare);

        Replay(BitemporalSnapshot snapshot) {
            this.snapshot = snapshot;
        }

        /**
         * The table of the events. With a snapshot, only the part that can still change: the events up to
         * its system floor rebuild the business timeline as believed then (from the seed state, placed
         * before every sequence), its believed rows are the belief then, and the later events replay on top.
         */
        Map<BitemporalRow.PrimaryKey, BitemporalRow> run(Collection<ChangeEvent> events) {
            List<ChangeEvent> sorted = new ArrayList<>(events);
            sorted.sort((a, b) -> {
                int c = SequenceCodec.compare(a.systemSequence(), b.systemSequence());
                return c != 0 ? c : order.compare(a, b);
            });
            int i = 0;
            if (snapshot != null) {
                Object[] seed = snapshot.seedState();
                TimelineEntry seedEntry = new TimelineEntry(new byte[0], List.of(), seed, seed == null ? null : new byte[0]);
                timeline.put(seedEntry);
                timeline.setHead(seedEntry);
                List<ChangeEvent> frozen = new ArrayList<>();
                while (i < sorted.size() && SequenceCodec.compare(sorted.get(i).systemSequence(), snapshot.floorSystemSequence()) <= 0) {
                    frozen.add(sorted.get(i++));
                }
                frozen.sort(order);
                List<VersionChange> ignored = new ArrayList<>();
                for (ChangeEvent e : frozen) {
                    scd2.apply(timeline, e, ignored);
                }
                for (BitemporalRow row : snapshot.believed()) {
                    believed.put(row.version().start(), row);
                    rows.put(row.primaryKey(), row);
                }
            }
            while (i < sorted.size()) {
                byte[] t = sorted.get(i).systemSequence();
                // the versions touched in this system time, as they were before it (null: did not exist)
                TreeMap<byte[], Version> touched = new TreeMap<>(SequenceCodec::compare);
                while (i < sorted.size() && Arrays.equals(sorted.get(i).systemSequence(), t)) {
                    ChangeEvent e = sorted.get(i++);
                    List<VersionChange> changes = new ArrayList<>();
                    scd2.apply(timeline, e, changes);
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
                    if (open != null && now != null && sameIdentity(open.version(), now)) {
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

        /** The versions changed in this system time, by start, as they are now (null: removed). */
        private final TreeMap<byte[], Version> current = new TreeMap<>(SequenceCodec::compare);

    }

    /** Same interval and tracked columns: the same row of history, whose untracked columns may differ. */
    private boolean sameIdentity(Version a, Version b) {
        return Arrays.equals(a.start(), b.start()) && Arrays.equals(a.end(), b.end()) && fold.sameTracked(a.row(), b.row());
    }
}
