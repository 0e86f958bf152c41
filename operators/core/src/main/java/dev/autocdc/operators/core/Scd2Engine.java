package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;

/**
 * SCD type 2 (semantics §4) for one key, incrementally, over a {@link Timeline}.
 *
 * <p>An event after the key's newest sequence reads only the head and writes one entry and the
 * head: it closes and opens a version, updates untracked columns in place, or closes on delete. Any
 * other event (late, or a tie with the newest sequence) reads the timeline from the last entry
 * before its sequence ({@link Timeline#ascendingFrom}), refolds from the state there until an entry
 * refolds to what it stores (all later ones are then unchanged: with full rows, the end of the
 * version run it lands in), rebuilds the versions over that window, and emits the difference. Its
 * refold and writes grow with how far its change reaches; its reads with how far back it lands
 * beyond what the store can find directly (in {@code FlinkTimeline}, the blocks the recent entries
 * name); neither with the length of the history.
 *
 * <p>An instance applies one event at a time (it keeps a list between events).
 *
 * <p>The early stop relies on every stored entry being the refold of the one before it. A change to
 * what {@link Fold} computes is therefore a change of the state format (see {@link StateCodec}).
 * Versions are never stored: they are the run-length encoding of the entries' states, and each
 * entry remembers where its run starts.
 */
public final class Scd2Engine {
    private final Flow flow;
    private final Fold fold;
    private final EventOrder order;
    private final boolean keepOnlyGreatestEvent;
    private final EngineCounters counters;

    /** {@link #apply}'s version changes, cleared per event: an engine applies one at a time. */
    private final List<VersionChange> versionChanges = new ArrayList<>(2);

    /**
     * {@link #apply}'s in-order path: target rows straight from the event (see {@link Appended}).
     */
    private final Appended.TargetRows targetRows;

    public Scd2Engine(Flow flow, EngineCounters counters) {
        this(flow, false, counters);
    }

    /**
     * @param keepEveryEvent keep every event at a sequence, even where only the greatest decides
     *     the state (the bitemporal belief: past beliefs need the events a later system time
     *     superseded)
     */
    public Scd2Engine(Flow flow, boolean keepEveryEvent, EngineCounters counters) {
        this.flow = flow;
        this.counters = counters;
        this.fold = new Fold(flow);
        this.order = new EventOrder(flow);
        // With full rows the state after a sequence is the greatest event's row (or absent): the
        // other events at that sequence can never matter again.
        this.keepOnlyGreatestEvent = flow.isFullRow() && !keepEveryEvent;
        this.targetRows = new Appended.TargetRows(flow.sequenceCodec());
    }

    /**
     * Applies one event and appends the target-row changes (SCD2 rows: base, __START_AT, __END_AT).
     */
    public void apply(Timeline timeline, ChangeEvent event, List<TargetChange> out) {
        TimelineEntry head = timeline.head();
        if (head == null || SequenceCodec.compare(event.sequence(), head.sequence()) > 0) {
            // the common case: its rows without version objects between
            appendNewest(timeline, head, event, targetRows.into(out), null);
            return;
        }
        List<VersionChange> changes = versionChanges;
        changes.clear();
        applyBehind(timeline, head, event, changes);
        for (int i = 0; i < changes.size(); i++) { // (no iterator: once per event)
            out.add(changes.get(i).toTargetChange(flow.sequenceCodec()));
        }
    }

    /** Applies one event and appends the version changes (what the bitemporal engine builds on). */
    public void applyVersions(Timeline timeline, ChangeEvent event, Collection<VersionChange> out) {
        TimelineEntry head = timeline.head();
        if (head == null || SequenceCodec.compare(event.sequence(), head.sequence()) > 0) {
            appendNewest(timeline, head, event, new Appended.VersionChanges(out), null);
        } else {
            applyBehind(timeline, head, event, out);
        }
    }

    /** An event at or before the head's sequence. */
    private void applyBehind(
            Timeline timeline,
            TimelineEntry head,
            ChangeEvent event,
            Collection<VersionChange> out) {
        if (SequenceCodec.compare(event.sequence(), head.sequence()) < 0) {
            counters.countLate();
        }
        applyBehindHead(timeline, event, out);
    }

    /**
     * An event after the head's sequence ({@code head}: the timeline's head, null when empty): its
     * version changes told to {@code out}, then its entry written, carrying {@code closedSince} (a
     * bitemporal belief's system start of the version closed there; null for SCD2) when the event
     * closed a version.
     */
    void appendNewest(
            Timeline timeline,
            TimelineEntry head,
            ChangeEvent event,
            Appended out,
            byte[] closedSince) {
        Object[] previous = head == null ? null : head.state();
        Object[] state = fold.apply(previous, event);
        byte[] start;
        if (state == null) {
            start = null;
        } else if (previous != null && fold.sameTracked(previous, state)) {
            start = head.versionStart();
        } else {
            start = event.sequence();
        }
        boolean closed = previous != null && start != head.versionStart();
        if (previous != null) {
            if (closed) {
                out.closed(head.versionStart(), previous, event.sequence());
            } else if (!Values.sameRow(previous, state)) {
                out.rewritten(head.versionStart(), previous, state);
            }
        }
        if (state != null && start == event.sequence()) {
            out.opened(start, state);
        }
        TimelineEntry entry =
                new TimelineEntry(
                        event.sequence(),
                        List.of(event),
                        state,
                        start,
                        0L,
                        closed ? closedSince : null);
        timeline.put(entry);
        timeline.setHead(entry);
    }

    private void applyBehindHead(
            Timeline timeline, ChangeEvent event, Collection<VersionChange> out) {
        Iterator<TimelineEntry> it = timeline.ascendingFrom(event.sequence());
        TimelineEntry next = it.hasNext() ? it.next() : null;
        TimelineEntry before = null;
        if (next != null && SequenceCodec.compare(next.sequence(), event.sequence()) < 0) {
            before = next;
            next = it.hasNext() ? it.next() : null;
        }
        TimelineEntry at =
                next != null && Arrays.equals(next.sequence(), event.sequence()) ? next : null;
        if (at != null) {
            next = it.hasNext() ? it.next() : null;
        }
        List<ChangeEvent> events = at == null ? List.of(event) : merge(at.events(), event);
        if (events == null) {
            return; // a duplicate, or an event that can change nothing
        }
        // an entry keeps what a bitemporal belief recorded on it (its system start) through the
        // refold
        TimelineEntry first =
                at == null
                        ? new TimelineEntry(event.sequence(), events, null, null)
                        : new TimelineEntry(
                                event.sequence(), events, null, null, 0L, at.believedSince());

        // Refold from the state before the event: its entry, then each later one until an entry
        // refolds to what it stores. The fold of an entry depends only on the state and version
        // start before it, so every entry after that one is unchanged too, and the versions that
        // changed all lie before it.
        List<TimelineEntry> was =
                new ArrayList<>(); // the stored entries from the event's sequence on
        List<TimelineEntry> now = new ArrayList<>(); // the same, refolded (and the event's entry)
        if (at != null) {
            was.add(at);
        }
        TimelineEntry refolded =
                refold(
                        first,
                        before == null ? null : before.state(),
                        before == null ? null : before.versionStart());
        now.add(refolded);
        boolean converged = false;
        while (next != null) {
            TimelineEntry again = refold(next, refolded.state(), refolded.versionStart());
            was.add(next);
            now.add(again);
            if (Values.sameRow(next.state(), again.state())
                    && Arrays.equals(next.versionStart(), again.versionStart())) {
                converged = true;
                break;
            }
            refolded = again;
            next = it.hasNext() ? it.next() : null;
        }

        diff(versions(before, was), versions(before, now), out);

        int offset = at == null ? 1 : 0; // now.get(i) is was.get(i - offset)
        for (int i = 0; i < now.size(); i++) {
            TimelineEntry stored = i - offset < 0 ? null : was.get(i - offset);
            TimelineEntry entry = now.get(i);
            if (i == 0
                    || !Values.sameRow(stored.state(), entry.state())
                    || !Arrays.equals(stored.versionStart(), entry.versionStart())) {
                timeline.put(entry);
            }
        }
        if (!converged) {
            timeline.setHead(now.get(now.size() - 1)); // the refold reached the head
        }
    }

    /**
     * An entry with the state and version start its events give after {@code state}, which starts
     * at {@code start}.
     */
    private TimelineEntry refold(TimelineEntry entry, Object[] state, byte[] start) {
        Object[] next = state;
        for (ChangeEvent e : entry.events()) {
            next = fold.apply(next, e);
        }
        byte[] nextStart;
        if (next == null) {
            nextStart = null;
        } else if (state != null && fold.sameTracked(state, next)) {
            nextStart = start;
        } else {
            nextStart = entry.sequence();
        }
        return entry.withState(next, nextStart);
    }

    /** The events at one sequence with {@code event} added, or null when that changes nothing. */
    private List<ChangeEvent> merge(List<ChangeEvent> existing, ChangeEvent event) {
        List<ChangeEvent> merged = new ArrayList<>(existing.size() + 1);
        boolean added = false;
        for (ChangeEvent e : existing) {
            if (!added) {
                int c = order.compareAtSameSequence(event, e);
                if (c == 0) {
                    counters.countDuplicate();
                    return null;
                }
                if (Arrays.equals(event.systemSequence(), e.systemSequence())) {
                    counters.countConflictingTie();
                }
                if (c < 0) {
                    merged.add(event);
                    added = true;
                }
            }
            merged.add(e);
        }
        if (!added) {
            merged.add(event);
        }
        if (keepOnlyGreatestEvent) {
            ChangeEvent greatest = merged.get(merged.size() - 1);
            return greatest == event ? List.of(event) : null;
        }
        return merged;
    }

    /**
     * The target rows (semantics §4) of the versions the timeline holds, a version whose start lies
     * before its oldest entry included: what erasing the key deletes.
     */
    public List<Object[]> rows(Timeline timeline) {
        List<TimelineEntry> ascending = new ArrayList<>();
        for (Iterator<TimelineEntry> it = timeline.newestFirst(); it.hasNext(); ) {
            ascending.add(0, it.next());
        }
        List<Object[]> rows = new ArrayList<>();
        for (Version v : versions(null, ascending)) {
            rows.add(v.toTargetRow(flow.sequenceCodec()));
        }
        return rows;
    }

    /**
     * The versions over {@code entries} (ascending), preceded by {@code before}, whose version
     * start is taken as stored (it may lie further back).
     */
    private static List<Version> versions(TimelineEntry before, List<TimelineEntry> entries) {
        List<Version> versions = new ArrayList<>();
        byte[] openStart = null;
        Object[] openRow = null;
        List<TimelineEntry> all = new ArrayList<>(entries.size() + 1);
        if (before != null) {
            all.add(before);
        }
        all.addAll(entries);
        for (TimelineEntry entry : all) {
            byte[] start = entry.state() == null ? null : entry.versionStart();
            if (openStart != null && !Arrays.equals(openStart, start)) {
                versions.add(new Version(openStart, entry.sequence(), openRow));
                openStart = null;
            }
            if (start != null) {
                openStart = start;
                openRow = entry.state();
            }
        }
        if (openStart != null) {
            versions.add(new Version(openStart, null, openRow));
        }
        return versions;
    }

    private static void diff(List<Version> was, List<Version> now, Collection<VersionChange> out) {
        TreeMap<byte[], Version[]> byStart = new TreeMap<>(SequenceCodec::compare);
        for (Version v : was) {
            byStart.computeIfAbsent(v.start(), k -> new Version[2])[0] = v;
        }
        for (Version v : now) {
            byStart.computeIfAbsent(v.start(), k -> new Version[2])[1] = v;
        }
        for (Version[] pair : byStart.values()) {
            if (pair[0] == null) {
                out.add(new VersionChange(null, pair[1]));
            } else if (pair[1] == null) {
                out.add(new VersionChange(pair[0], null));
            } else if (!pair[0].sameAs(pair[1])) {
                out.add(new VersionChange(pair[0], pair[1]));
            }
        }
    }
}
