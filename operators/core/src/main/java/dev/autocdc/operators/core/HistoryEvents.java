package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * The change events that make a stored history: how one key's rows of a target table kept elsewhere
 * (semantics §3-5) become events that a flow folds into the same rows. This is what starting a flow
 * from an existing history (bootstrap) replays.
 *
 * <p>Contract: for a valid history, folding the returned events by semantics §2-5 gives exactly the
 * given rows. A history is only what its rows show, so the events are the fewest that show it: for
 * each system time in order (type 1 and 2: once), an event at each business point where the belief
 * at that time differs from what the earlier events fold to there: an upsert of the believed row,
 * or a delete. For type 2 that is an upsert at the start of each row and a delete where a row ends
 * without a next one. {@link #checked} also checks the contract on the rows the engines make of the
 * events: what the checks of {@link #of} cannot see (an untracked column that could not show its
 * value) it refuses there.
 *
 * <p>Not for every flow: see {@link #unsupported}.
 *
 * <p>Refused with {@link InvalidHistoryException}, naming the first bad row: a null or incomplete
 * period bound, an interval that ends at or before it starts, two rows of one key in a type 1
 * table, and, in each belief (type 2: the table), an open row followed by another, two rows that
 * overlap, two adjacent rows equal on every tracked column (type 2 keeps those as one row), and a
 * null where IGNORE NULL UPDATES would have kept the value of the row before.
 */
public final class HistoryEvents {

    private HistoryEvents() {}

    /**
     * One stored row of a key: its base columns (keys and values, target order) and its periods as
     * Java values of the sequence types (see {@link ColumnType}). Type 1: {@code start} is the
     * row's sequence, the other bounds null; type 2: no system bounds.
     */
    public record Row(
            Object[] row, Object start, Object end, Object systemStart, Object systemEnd) {
        @Override
        public String toString() {
            return Arrays.deepToString(row)
                    + " ["
                    + text(start)
                    + ", "
                    + (end == null ? "open" : text(end))
                    + ")"
                    + (systemStart == null
                            ? ""
                            : " system ["
                                    + text(systemStart)
                                    + ", "
                                    + (systemEnd == null ? "open" : text(systemEnd))
                                    + ")");
        }

        private static String text(Object v) {
            return v instanceof Object[] a ? Arrays.deepToString(a) : String.valueOf(v);
        }
    }

    /**
     * The state after {@code events} (rows; null: a delete) applied in order to {@code state}
     * (null: absent), by semantics §2 with every column written.
     */
    private static Object[] fold(Flow flow, Object[] state, List<Object[]> events) {
        for (Object[] e : events) {
            if (e == null) {
                state = null;
            } else if (state == null) {
                state = e;
            } else {
                Object[] next = e.clone();
                for (int c = 0; c < next.length; c++) {
                    if (next[c] == null && flow.ignoresNull(c)) {
                        next[c] = state[c];
                    }
                }
                state = next;
            }
        }
        return state;
    }

    /** A row with its bounds encoded ({@link SequenceCodec}); null end: open. */
    private record Period(
            Row source, byte[] start, byte[] end, byte[] systemStart, byte[] systemEnd) {
        boolean believedAt(byte[] t) {
            return t == null
                    || (SequenceCodec.compare(systemStart, t) <= 0
                            && (systemEnd == null || SequenceCodec.compare(t, systemEnd) < 0));
        }

        boolean covers(byte[] p) {
            return SequenceCodec.compare(start, p) <= 0
                    && (end == null || SequenceCodec.compare(p, end) < 0);
        }
    }

    /**
     * Why a flow's stored histories cannot be replayed, or null when they can. A bitemporal flow
     * with IGNORE NULL UPDATES cannot: a row shows its untracked columns as the latest belief has
     * them, so an event made from an earlier belief carries values its source had as nulls, and
     * IGNORE NULL UPDATES keeps those into later beliefs.
     */
    public static String unsupported(Flow flow) {
        if (flow.targetType() == TargetType.BITEMPORAL) {
            for (int c = 0; c < flow.columnCount(); c++) {
                if (flow.ignoresNull(c)) {
                    return "a BITEMPORAL flow with IGNORE NULL UPDATES: its rows do not show the"
                            + " nulls its events carried, so they cannot be replayed";
                }
            }
        }
        return null;
    }

    /**
     * {@link #of}, checked: the flow's engines fold the events, in memory, to exactly the given
     * rows (the contract above), else the history is refused with the first row that differs.
     *
     * @throws InvalidHistoryException naming the first row that no flow of this shape makes
     */
    public static List<ChangeEvent> checked(Flow flow, List<Row> rows)
            throws InvalidHistoryException {
        List<ChangeEvent> events = of(flow, rows);
        HistoryEventsCheck.check(flow, rows, events);
        return events;
    }

    /**
     * The events of one key's rows, in the order they may be applied (system time, then business
     * time).
     *
     * @throws InvalidHistoryException naming the first row that no flow of this shape makes
     */
    public static List<ChangeEvent> of(Flow flow, List<Row> rows) throws InvalidHistoryException {
        if (unsupported(flow) != null) {
            throw new IllegalArgumentException(unsupported(flow));
        }
        boolean bitemporal = flow.targetType() == TargetType.BITEMPORAL;
        List<Period> periods = new ArrayList<>(rows.size());
        for (Row r : rows) {
            periods.add(encode(flow, r, bitemporal));
        }
        if (flow.targetType() == TargetType.SCD1 && periods.size() > 1) {
            throw new InvalidHistoryException(
                    rows.get(1), "a second row of the key " + keyOf(flow, rows.get(0).row()));
        }
        periods.sort(Comparator.comparing(Period::start, SequenceCodec::compare));
        Object[] keyRow = keyRow(flow, periods.isEmpty() ? null : periods.get(0).source.row());
        // per business point, the rows of its events in system order (null: a delete)
        TreeMap<byte[], List<Object[]>> made = new TreeMap<>(SequenceCodec::compare);
        List<ChangeEvent> events = new ArrayList<>();
        for (byte[] t : systemTimes(periods, bitemporal)) {
            List<Period> belief = new ArrayList<>();
            for (Period p : periods) {
                if (p.believedAt(t)) {
                    belief.add(p);
                }
            }
            check(flow, belief);
            show(flow, belief, t, keyRow, made, events);
        }
        return events;
    }

    /**
     * The system times in order, each one where a belief may begin: every system bound of a row;
     * for type 1 and 2 one time, null, the table's only belief.
     */
    private static List<byte[]> systemTimes(List<Period> periods, boolean bitemporal) {
        List<byte[]> times = new ArrayList<>();
        if (bitemporal) {
            TreeMap<byte[], Boolean> distinct = new TreeMap<>(SequenceCodec::compare);
            for (Period p : periods) {
                distinct.put(p.systemStart, true);
                if (p.systemEnd != null) {
                    distinct.put(p.systemEnd, true);
                }
            }
            times.addAll(distinct.keySet());
        } else {
            times.add(null);
        }
        return times;
    }

    /**
     * Adds to {@code events} and {@code made} the events at system time {@code t} (null for type 1
     * and 2) of one belief: at each business point where what the earlier events fold to differs
     * from the belief, an upsert of the believed row or a delete of {@code keyRow}.
     */
    private static void show(
            Flow flow,
            List<Period> belief,
            byte[] t,
            Object[] keyRow,
            TreeMap<byte[], List<Object[]>> made,
            List<ChangeEvent> events)
            throws InvalidHistoryException {
        TreeMap<byte[], Boolean> points = new TreeMap<>(SequenceCodec::compare);
        made.keySet().forEach(p -> points.put(p, true));
        for (Period p : belief) {
            points.put(p.start, true);
            if (p.end != null) {
                points.put(p.end, true);
            }
        }
        List<byte[]> at = new ArrayList<>(points.keySet());
        Object[] carried = null; // the state just before the point, as the events fold
        int row = 0; // the belief's rows are by start and apart (checked): one sweep
        for (int i = 0; i < at.size(); i++) {
            byte[] point = at.get(i);
            while (row < belief.size()
                    && belief.get(row).end != null
                    && SequenceCodec.compare(belief.get(row).end, point) <= 0) {
                row++;
            }
            Period wanted =
                    row < belief.size() && belief.get(row).covers(point) ? belief.get(row) : null;
            // a row's untracked columns show the state at its last point (semantics §4): before
            // that, only its tracked columns must hold
            boolean whole = wanted == null || i + 1 == at.size() || !wanted.covers(at.get(i + 1));
            List<Object[]> here = made.computeIfAbsent(point, p -> new ArrayList<>());
            Object[] state = fold(flow, carried, here);
            Object[] want = wanted == null ? null : wanted.source.row();
            if (!same(flow, state, want, whole)) {
                events.add(
                        want == null
                                ? new ChangeEvent(Op.DELETE, keyRow, point, t, null)
                                : new ChangeEvent(Op.UPSERT, want, point, t, null));
                here.add(want);
                state = fold(flow, state, Collections.singletonList(want));
                if (!same(flow, state, want, whole)) {
                    throw new InvalidHistoryException(
                            wanted.source,
                            "IGNORE NULL UPDATES keeps "
                                    + Arrays.deepToString(state)
                                    + " from the row before it, where it shows a null");
                }
            }
            if (here.isEmpty()) {
                made.remove(point);
            }
            carried = state;
        }
    }

    private static Period encode(Flow flow, Row r, boolean bitemporal)
            throws InvalidHistoryException {
        SequenceCodec seq = flow.sequenceCodec();
        if (!seq.isComplete(r.start())) {
            throw new InvalidHistoryException(r, "its start (__START_AT) is null or incomplete");
        }
        byte[] start = seq.encode(r.start());
        byte[] end = null;
        if (r.end() != null) {
            if (!seq.isComplete(r.end())) {
                throw new InvalidHistoryException(r, "its end (__END_AT) is incomplete");
            }
            end = seq.encode(r.end());
            if (SequenceCodec.compare(end, start) <= 0) {
                throw new InvalidHistoryException(r, "it ends at or before it starts");
            }
        }
        byte[] systemStart = null;
        byte[] systemEnd = null;
        if (bitemporal) {
            SequenceCodec sys = flow.systemSequenceCodec();
            if (!sys.isComplete(r.systemStart())) {
                throw new InvalidHistoryException(
                        r, "its system start (__SYSTEM_START_AT) is null or incomplete");
            }
            systemStart = sys.encode(r.systemStart());
            if (r.systemEnd() != null) {
                if (!sys.isComplete(r.systemEnd())) {
                    throw new InvalidHistoryException(
                            r, "its system end (__SYSTEM_END_AT) is incomplete");
                }
                systemEnd = sys.encode(r.systemEnd());
                if (SequenceCodec.compare(systemEnd, systemStart) <= 0) {
                    throw new InvalidHistoryException(
                            r, "its system interval ends at or before it starts");
                }
            }
        }
        return new Period(r, start, end, systemStart, systemEnd);
    }

    /** One belief (type 2: the table), rows by start: the shape semantics §4 gives every table. */
    private static void check(Flow flow, List<Period> belief) throws InvalidHistoryException {
        for (int i = 1; i < belief.size(); i++) {
            Period before = belief.get(i - 1);
            Period next = belief.get(i);
            String at = next.systemStart == null ? "" : " (in the same belief)";
            if (before.end == null) {
                throw new InvalidHistoryException(
                        next.source, "it starts after the open row " + before.source + at);
            }
            int gap = SequenceCodec.compare(before.end, next.start);
            if (gap > 0) {
                throw new InvalidHistoryException(next.source, "it overlaps " + before.source + at);
            }
            if (gap == 0 && sameTracked(flow, before.source.row(), next.source.row())) {
                throw new InvalidHistoryException(
                        next.source,
                        "it starts where "
                                + before.source
                                + " ends with the same tracked columns"
                                + at
                                + ": SCD type 2 keeps them as one row");
            }
        }
    }

    /** Both absent, or both present and equal: on every column, or on the tracked ones. */
    private static boolean same(Flow flow, Object[] a, Object[] b, boolean everyColumn) {
        if (a == null || b == null) {
            return a == b;
        }
        return everyColumn ? Values.sameRow(a, b) : sameTracked(flow, a, b);
    }

    private static boolean sameTracked(Flow flow, Object[] a, Object[] b) {
        for (int c = 0; c < a.length; c++) {
            if (flow.isTracked(c) && !Values.same(a[c], b[c])) {
                return false;
            }
        }
        return true;
    }

    /** The key columns of a row, other columns null: the row of a delete. */
    private static Object[] keyRow(Flow flow, Object[] row) {
        Object[] key = new Object[flow.columnCount()];
        if (row != null) {
            for (int k : flow.keyIndexes()) {
                key[k] = row[k];
            }
        }
        return key;
    }

    private static String keyOf(Flow flow, Object[] row) {
        int[] keys = flow.keyIndexes();
        Object[] key = new Object[keys.length];
        for (int i = 0; i < keys.length; i++) {
            key[i] = row[keys[i]];
        }
        return Arrays.deepToString(key);
    }
}
