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
 * <p>Fast path: an event after the key's greatest business sequence and not before its greatest system
 * sequence changes only the open version, so it costs O(1): the open row is closed in system time (or
 * replaced, when it was believed from this very system time) and the new belief's rows are added.
 *
 * <p>Any other event (late in business time, a correction at the same business time, or late in system
 * time) recomputes the key's table from its stored events with {@link #table}, before and after the event,
 * and emits the difference: rows split, their system end moved, or removed (SPEC §13 D and G).
 */
public final class BitemporalEngine {
    private final Flow flow;
    private final Fold fold;
    private final EventOrder order;
    private final EngineCounters counters = new EngineCounters();

    public BitemporalEngine(Flow flow) {
        this.flow = flow;
        this.fold = new Fold(flow);
        this.order = new EventOrder(flow);
    }

    public EngineCounters counters() {
        return counters;
    }

    /** Applies one event; appends changes of target rows (base, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT). */
    public void apply(BitemporalStore store, ChangeEvent event, List<TargetChange> out) {
        BitemporalHead head = store.head();
        if (isNewest(head, event)) {
            appendNewest(store, head, event, out);
        } else {
            if (SequenceCodec.compare(event.sequence(), head.latestSequence()) < 0
                    || SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence()) < 0) {
                counters.late++;
            }
            recompute(store, head, event, out);
        }
    }

    /**
     * Whether the event is after the key's greatest business sequence and either after its greatest
     * system sequence, or at that system sequence when no row believed before it can close: a row closed
     * at the greatest system time would fall back to the untracked values of the belief before it,
     * which the head does not hold.
     */
    private static boolean isNewest(BitemporalHead head, ChangeEvent event) {
        if (head == null) {
            return true;
        }
        if (SequenceCodec.compare(event.sequence(), head.latestSequence()) <= 0) {
            return false;
        }
        int system = SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence());
        return system > 0 || (system == 0 && (head.state() == null || Arrays.equals(head.openSystemStart(), event.systemSequence())));
    }

    private void appendNewest(BitemporalStore store, BitemporalHead head, ChangeEvent event, List<TargetChange> out) {
        byte[] t = event.systemSequence();
        Object[] previous = head == null ? null : head.state();
        Object[] state = fold.apply(previous, event);
        byte[] openStart = null;
        byte[] openSystemStart = null;
        if (previous != null) {
            BitemporalRow open = new BitemporalRow(new Version(head.openStart(), null, previous), head.openSystemStart(), null);
            if (state != null && fold.sameTracked(previous, state)) {
                // Same version, untracked columns change in place (they have no history).
                openStart = head.openStart();
                openSystemStart = head.openSystemStart();
                if (!Values.sameRow(previous, state)) {
                    emit(out, open, new BitemporalRow(open.version().withRow(state), openSystemStart, null));
                }
            } else {
                // The open version ends at the event: the old belief closes at t, the new one holds from t.
                BitemporalRow closed = new BitemporalRow(open.version().withEnd(event.sequence()), t, null);
                if (Arrays.equals(open.systemStart(), t)) {
                    emit(out, open, closed); // believed only from t: it never was, replace it
                } else {
                    emit(out, open, open.closedAt(t));
                    emit(out, null, closed);
                }
            }
        }
        if (state != null && openStart == null) {
            openStart = event.sequence();
            openSystemStart = t;
            emit(out, null, new BitemporalRow(new Version(openStart, null, state), t, null));
        }
        store.put(new TimelineEntry(event.sequence(), List.of(event), null, null));
        store.setHead(new BitemporalHead(event.sequence(), t, state, openStart, openSystemStart,
                head == null ? null : head.floorSequence(), head == null ? null : head.floorSystemSequence()));
    }

    private void recompute(BitemporalStore store, BitemporalHead head, ChangeEvent event, List<TargetChange> out) {
        List<ChangeEvent> events = new ArrayList<>();
        TimelineEntry at = null;
        for (Iterator<TimelineEntry> it = store.entries(); it.hasNext(); ) {
            TimelineEntry entry = it.next();
            events.addAll(entry.events());
            if (Arrays.equals(entry.sequence(), event.sequence())) {
                at = entry;
            }
        }
        List<ChangeEvent> atSequence = new ArrayList<>(at == null ? List.of() : at.events());
        for (ChangeEvent e : atSequence) {
            if (order.compareAtSameSequence(e, event) == 0) {
                counters.duplicates++;
                return; // exact duplicate
            }
            if (Arrays.equals(e.systemSequence(), event.systemSequence())) {
                counters.conflictingTies++;
            }
        }
        BitemporalSnapshot snapshot = store.snapshot();
        Map<BitemporalRow.PrimaryKey, BitemporalRow> before = new Replay(snapshot).run(events);
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

        atSequence.add(event);
        atSequence.sort(order::compareAtSameSequence);
        store.put(new TimelineEntry(event.sequence(), atSequence, null, null));
        BitemporalHead next = replay.head();
        if (next.floorSequence() == null && head.floorSequence() != null) {
            next = next.withFloors(head.floorSequence(), head.floorSystemSequence()); // floors of a forgotten past
        }
        store.setHead(next);
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
        for (Iterator<TimelineEntry> it = store.entries(); it.hasNext(); ) {
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
        List<byte[]> dropped = new ArrayList<>();
        for (Iterator<TimelineEntry> it = store.entries(); it.hasNext(); ) {
            TimelineEntry entry = it.next();
            if (SequenceCodec.compare(entry.sequence(), floor) < 0) {
                dropped.add(entry.sequence());
            }
        }
        dropped.forEach(store::remove);
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
        private byte[] latestSequence;
        private byte[] latestSystemSequence;

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
                    if (latestSequence == null || SequenceCodec.compare(e.sequence(), latestSequence) > 0) {
                        latestSequence = e.sequence();
                    }
                }
                for (BitemporalRow row : snapshot.believed()) {
                    believed.put(row.version().start(), row);
                    rows.put(row.primaryKey(), row);
                }
                latestSystemSequence = snapshot.floorSystemSequence();
            }
            while (i < sorted.size()) {
                byte[] t = sorted.get(i).systemSequence();
                // the versions touched in this system time, as they were before it (null: did not exist)
                TreeMap<byte[], Version> touched = new TreeMap<>(SequenceCodec::compare);
                while (i < sorted.size() && Arrays.equals(sorted.get(i).systemSequence(), t)) {
                    ChangeEvent e = sorted.get(i++);
                    if (latestSequence == null || SequenceCodec.compare(e.sequence(), latestSequence) > 0) {
                        latestSequence = e.sequence();
                    }
                    List<VersionChange> changes = new ArrayList<>();
                    scd2.apply(timeline, e, changes);
                    for (VersionChange c : changes) {
                        if (!touched.containsKey(c.start())) {
                            touched.put(c.start(), c.before());
                        }
                        current.put(c.start(), c.after());
                    }
                }
                latestSystemSequence = t;
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

        BitemporalHead head() {
            TimelineEntry last = timeline.head();
            Object[] state = last == null ? null : last.state();
            BitemporalRow open = believed.isEmpty() ? null : believed.lastEntry().getValue();
            byte[] floor = snapshot == null ? null : snapshot.floorSequence();
            byte[] floorSystem = snapshot == null ? null : snapshot.floorSystemSequence();
            if (state == null || open == null || !open.version().isOpen()) {
                return new BitemporalHead(latestSequence, latestSystemSequence, null, null, null, floor, floorSystem);
            }
            return new BitemporalHead(latestSequence, latestSystemSequence, state, open.version().start(), open.systemStart(),
                    floor, floorSystem);
        }

        private boolean sameIdentity(Version a, Version b) {
            return Arrays.equals(a.start(), b.start()) && Arrays.equals(a.end(), b.end()) && fold.sameTracked(a.row(), b.row());
        }
    }
}
