package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bitemporal history (semantics §5) for one key.
 *
 * <p>The key's store holds its current belief as an SCD2 timeline of every event (the table
 * believed at the greatest system time is the SCD2 history of all events), plus the system time
 * each version of it is believed from: on the entry where a closed version ends, and in the head
 * for the open version.
 *
 * <p>In-order path: an event after the key's greatest system sequence (late or not in business
 * time) changes the belief as one SCD2 event does, at the same cost, and every version it changed
 * is one row transition in system time: the believed row closes at the event's system time and the
 * new version's row opens there; a version whose tracked columns and interval stay the same is
 * updated in place. An event at the greatest system sequence takes this path too when it is after
 * the greatest business sequence and only rows believed from that very system time can change (they
 * are replaced). When the event is also after the belief's newest sequence (the common case), its
 * rows come straight from the SCD2 step ({@link BitemporalAppended}) and the entry it writes
 * already carries the system start of the version it closed; otherwise from the SCD2 step's version
 * changes.
 *
 * <p>Any other event (late in system time, or a tie with the greatest system sequence) recomputes
 * the key's table from its events with {@link #table}, before and after the event, and emits the
 * difference: rows split, their system end moved, or removed (semantics §13 D and G).
 */
public final class BitemporalEngine {
    private final Flow flow;
    private final Fold fold;
    private final EventOrder order;
    private final EngineCounters counters;

    /**
     * Keeps the current belief (every event at a sequence is kept for the past beliefs) for an
     * event in system order, counting its duplicates and ties; whether it is late is decided here,
     * in both timelines.
     */
    private final Scd2Engine belief;

    /** The same, counting nothing: a recomputed event's duplicates and ties are counted here. */
    private final Scd2Engine beliefUncounted;

    /**
     * The rows of an event after the belief's newest sequence, built as the SCD2 step tells its
     * version changes; null: from the version changes, as any other event in system order.
     */
    private final BitemporalAppended appended;

    public BitemporalEngine(Flow flow, EngineCounters counters) {
        this(flow, counters, true);
    }

    /**
     * An engine that builds every event's rows from the SCD2 step's version changes, without {@link
     * BitemporalAppended}: the rows are the same, which a test checks change by change.
     */
    static BitemporalEngine withVersionChangesOnly(Flow flow, EngineCounters counters) {
        return new BitemporalEngine(flow, counters, false);
    }

    private BitemporalEngine(Flow flow, EngineCounters counters, boolean appendDirectly) {
        this.flow = flow;
        this.fold = new Fold(flow);
        this.order = new EventOrder(flow);
        this.counters = counters;
        this.belief =
                new Scd2Engine(
                        flow,
                        true,
                        new EngineCounters() {
                            @Override
                            public void countLate() {}

                            @Override
                            public void countConflictingTie() {
                                counters.countConflictingTie();
                            }

                            @Override
                            public void countDuplicate() {
                                counters.countDuplicate();
                            }
                        });
        this.beliefUncounted = new Scd2Engine(flow, true, EngineCounters.NONE);
        this.appended =
                appendDirectly
                        ? new BitemporalAppended(flow.sequenceCodec(), flow.systemSequenceCodec())
                        : null;
    }

    /**
     * Applies one event; appends changes of target rows (base, __START_AT, __END_AT,
     * __SYSTEM_START_AT, __SYSTEM_END_AT).
     */
    public void apply(BitemporalStore store, ChangeEvent event, List<TargetChange> out) {
        BitemporalHead head = store.head();
        TimelineEntry top = store.belief().head();
        if (isInSystemOrder(head, top, event)) {
            if (top != null && SequenceCodec.compare(event.sequence(), top.sequence()) < 0) {
                counters.countLate();
            }
            applyInSystemOrder(store, head, top, event, out);
        } else {
            if ((top != null && SequenceCodec.compare(event.sequence(), top.sequence()) < 0)
                    || SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence())
                            < 0) {
                counters.countLate();
            }
            recompute(store, head, event, out);
        }
    }

    /**
     * Whether the event is after the key's greatest system sequence, or at it, after the greatest
     * business sequence, with no open version believed from before it: then only rows believed from
     * that system time can change (they are replaced), and rows that stopped being believed at it
     * stay as they are.
     */
    private static boolean isInSystemOrder(
            BitemporalHead head, TimelineEntry top, ChangeEvent event) {
        if (head == null) {
            return true;
        }
        int system = SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence());
        if (system != 0) {
            return system > 0;
        }
        return top == null
                || (SequenceCodec.compare(event.sequence(), top.sequence()) > 0
                        && (top.state() == null
                                || Arrays.equals(head.openSystemStart(), event.systemSequence())));
    }

    /**
     * The event changes the belief as an SCD2 event; each changed version's believed row closes at
     * the event's system time t (or is replaced, when believed from t) and the new version is
     * believed from t.
     */
    private void applyInSystemOrder(
            BitemporalStore store,
            BitemporalHead head,
            TimelineEntry top,
            ChangeEvent event,
            List<TargetChange> out) {
        byte[] t = event.systemSequence();
        if (appended != null
                && (top == null || SequenceCodec.compare(event.sequence(), top.sequence()) > 0)) {
            // the common case: rows straight from the SCD2 step
            // (a version closed at the event's entry is believed from t: the entry records it)
            belief.appendNewest(
                    store.belief(),
                    top,
                    event,
                    appended.into(out, t, head == null ? null : head.openSystemStart()),
                    t);
            store.setHead(newHead(head, t, appended.openSince()));
            return;
        }
        List<VersionChange> changes = new ArrayList<>(3);
        belief.applyVersions(store.belief(), event, changes);

        // Read first: each changed version's believed row, its system start from the head (open) or
        // from the entry where it ends (closed), which the SCD2 step has just read or written.
        List<BitemporalRow> believed = new ArrayList<>(changes.size());
        for (VersionChange c : changes) {
            Version before = c.before();
            byte[] since =
                    before == null
                            ? null
                            : before.isOpen()
                                    ? head.openSystemStart()
                                    : entryAt(store.belief(), before.end()).believedSince();
            if (before != null && since == null) {
                throw BitemporalAppended.noSystemStart();
            }
            believed.add(before == null ? null : new BitemporalRow(before, since, null));
        }
        byte[] openSince = head == null ? null : head.openSystemStart();
        boolean openSet = false;
        // where closed versions end now, and the system start of each (null: no version ends there
        // any more)
        TreeMap<byte[], byte[]> ends = new TreeMap<>(SequenceCodec::compare);
        for (int i = 0; i < changes.size(); i++) {
            Version before = changes.get(i).before();
            Version after = changes.get(i).after();
            BitemporalRow was = believed.get(i);
            if (was != null
                    && after != null
                    && BitemporalReplay.sameIdentity(fold, before, after)) {
                // Same version, untracked columns change in place (they have no history).
                if (!Values.sameRow(before.row(), after.row())) {
                    emit(out, was, was.withVersion(after));
                }
                continue;
            }
            boolean believedFromT = was != null && Arrays.equals(was.systemStart(), t);
            BitemporalRow.transition(
                    out,
                    targetRow(was),
                    believedFromT,
                    was == null || believedFromT ? null : targetRow(was.closedAt(t)),
                    after == null ? null : targetRow(new BitemporalRow(after, t, null)));
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
        store.setHead(newHead(head, t, openSince));
    }

    /** The head after an event at system sequence {@code t} in system order. */
    private static BitemporalHead newHead(BitemporalHead head, byte[] t, byte[] openSince) {
        byte[] latest =
                head == null || SequenceCodec.compare(t, head.latestSystemSequence()) > 0
                        ? t
                        : head.latestSystemSequence();
        return new BitemporalHead(
                latest,
                openSince,
                head == null ? null : head.floorSequence(),
                head == null ? null : head.floorSystemSequence());
    }

    /** The belief's entry at a sequence (where a version ends: it exists). */
    private static TimelineEntry entryAt(Timeline belief, byte[] sequence) {
        TimelineEntry entry = belief.entryAt(sequence);
        if (entry == null) {
            throw new IllegalStateException(
                    "The key's belief has no entry where one of its versions ends");
        }
        return entry;
    }

    /**
     * Records on the entry where a closed version ends the system start of that version's believed
     * row (null: no version ends there). At most one version ends at an entry, and that entry is
     * among those the SCD2 step read or wrote, so recording costs no state access of its own.
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

    private void recompute(
            BitemporalStore store, BitemporalHead head, ChangeEvent event, List<TargetChange> out) {
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
                counters.countDuplicate();
                return; // exact duplicate
            }
            if (Arrays.equals(e.systemSequence(), event.systemSequence())) {
                counters.countConflictingTie();
            }
        }
        BitemporalSnapshot snapshot = store.snapshot();
        BitemporalReplay was = new BitemporalReplay(flow, fold, order, snapshot);
        Map<BitemporalRow.PrimaryKey, BitemporalRow> before = was.run(events);
        events.add(event);
        BitemporalReplay replay = new BitemporalReplay(flow, fold, order, snapshot);
        Map<BitemporalRow.PrimaryKey, BitemporalRow> after = replay.run(events);

        TreeMap<BitemporalRow.PrimaryKey, BitemporalRow[]> pairs = new TreeMap<>();
        before.forEach((k, r) -> pairs.computeIfAbsent(k, x -> new BitemporalRow[2])[0] = r);
        after.forEach((k, r) -> pairs.computeIfAbsent(k, x -> new BitemporalRow[2])[1] = r);
        for (BitemporalRow[] pair : pairs.values()) {
            if (pair[0] == null || pair[1] == null || !pair[0].sameAs(pair[1])) {
                emit(out, pair[0], pair[1]);
            }
        }

        // The belief is the SCD2 history of every event, whatever their order: the event joins it
        // as one more.
        beliefUncounted.applyVersions(store.belief(), event, new ArrayList<>(2));
        byte[] openSince = null;
        TreeMap<byte[], byte[]> ends = new TreeMap<>(SequenceCodec::compare);
        for (BitemporalRow row : was.believed().values()) {
            if (!row.version().isOpen()) {
                ends.put(row.version().end(), null);
            }
        }
        for (BitemporalRow row : replay.believed().values()) {
            if (row.version().isOpen()) {
                openSince = row.systemStart();
            } else {
                ends.put(row.version().end(), row.systemStart());
            }
        }
        ends.forEach((end, since) -> recordSince(store.belief(), end, since));
        byte[] latest =
                SequenceCodec.compare(event.systemSequence(), head.latestSystemSequence()) > 0
                        ? event.systemSequence()
                        : head.latestSystemSequence();
        store.setHead(
                new BitemporalHead(
                        latest, openSince, head.floorSequence(), head.floorSystemSequence()));
    }

    /**
     * The target rows (semantics §5) the store holds, as its events and retained snapshot make
     * them: what erasing the key deletes.
     */
    public List<Object[]> rows(BitemporalStore store) {
        List<ChangeEvent> events = new ArrayList<>();
        for (Iterator<TimelineEntry> it = store.belief().newestFirst(); it.hasNext(); ) {
            events.addAll(it.next().events());
        }
        List<Object[]> rows = new ArrayList<>();
        for (BitemporalRow r :
                new BitemporalReplay(flow, fold, order, store.snapshot()).run(events).values()) {
            rows.add(targetRow(r));
        }
        return rows;
    }

    /** The whole bitemporal table of one key's events (any order), by primary key. */
    public Map<BitemporalRow.PrimaryKey, BitemporalRow> table(Collection<ChangeEvent> events) {
        return new BitemporalReplay(flow, fold, order, null).run(events);
    }

    /** The row's target row; null for null. */
    private Object[] targetRow(BitemporalRow row) {
        return row == null
                ? null
                : row.toTargetRow(flow.sequenceCodec(), flow.systemSequenceCodec());
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
}
