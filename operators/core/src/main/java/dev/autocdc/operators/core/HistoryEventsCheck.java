package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * The contract of {@link HistoryEvents}, checked where {@link HistoryEvents#checked} needs it: the
 * flow's own engine folds one key's events, in memory, and the rows it makes must be exactly the
 * stored rows, no more and no fewer. Stateless.
 */
final class HistoryEventsCheck {

    private HistoryEventsCheck() {}

    /**
     * @throws InvalidHistoryException naming a stored row that is stored twice or that the engine
     *     does not make, or the first stored row when the engine makes more
     */
    static void check(Flow flow, List<HistoryEvents.Row> rows, List<ChangeEvent> events)
            throws InvalidHistoryException {
        TreeMap<Object[], Integer> made = new TreeMap<>(HistoryEventsCheck::compareRows);
        for (TargetChange c : changes(flow, events)) {
            if (c.before() != null) {
                made.computeIfPresent(c.before(), (k, n) -> n == 1 ? null : n - 1);
            }
            if (c.after() != null) {
                made.merge(c.after(), 1, Integer::sum);
            }
        }
        TreeMap<Object[], HistoryEvents.Row> stored =
                new TreeMap<>(HistoryEventsCheck::compareRows);
        for (HistoryEvents.Row r : rows) {
            Object[] target = targetRow(flow, r);
            if (stored.put(target, r) != null) {
                throw new InvalidHistoryException(r, "it is stored twice");
            }
            if (!made.containsKey(target)) {
                throw new InvalidHistoryException(
                        r,
                        "the flow makes other rows of this key's events: "
                                + describe(made.keySet()));
            }
        }
        if (made.size() != stored.size()) {
            throw new InvalidHistoryException(
                    rows.get(0),
                    "the flow makes more rows of this key's events: " + describe(made.keySet()));
        }
    }

    /** The target changes the flow's engine makes of the events, from an empty state. */
    private static List<TargetChange> changes(Flow flow, List<ChangeEvent> events) {
        List<TargetChange> changes = new ArrayList<>();
        switch (flow.targetType()) {
            case SCD1:
                {
                    Scd1Engine engine = new Scd1Engine(flow, EngineCounters.NONE);
                    List<ChangeEvent> state = null;
                    for (ChangeEvent e : events) {
                        state = engine.apply(state, e, changes);
                    }
                    break;
                }
            case SCD2:
                {
                    Scd2Engine engine = new Scd2Engine(flow, EngineCounters.NONE);
                    InMemoryTimeline timeline = new InMemoryTimeline();
                    for (ChangeEvent e : events) {
                        engine.apply(timeline, e, changes);
                    }
                    break;
                }
            default:
                {
                    BitemporalEngine engine = new BitemporalEngine(flow, EngineCounters.NONE);
                    InMemoryBitemporalStore store = new InMemoryBitemporalStore();
                    for (ChangeEvent e : events) {
                        engine.apply(store, e, changes);
                    }
                }
        }
        return changes;
    }

    /** A stored row as the target has it (semantics §3-5): base columns, then the periods. */
    private static Object[] targetRow(Flow flow, HistoryEvents.Row r) {
        Object[] row = r.row();
        switch (flow.targetType()) {
            case SCD1:
                return row;
            case SCD2:
                {
                    Object[] t = Arrays.copyOf(row, row.length + 2);
                    t[row.length] = r.start();
                    t[row.length + 1] = r.end();
                    return t;
                }
            default:
                {
                    Object[] t = Arrays.copyOf(row, row.length + 4);
                    t[row.length] = r.start();
                    t[row.length + 1] = r.end();
                    t[row.length + 2] = r.systemStart();
                    t[row.length + 3] = r.systemEnd();
                    return t;
                }
        }
    }

    private static String describe(Iterable<Object[]> rows) {
        List<String> out = new ArrayList<>();
        for (Object[] r : rows) {
            out.add(Arrays.deepToString(r));
        }
        return String.join(", ", out);
    }

    /** Rows column by column in {@link Values#compare}'s order. */
    private static int compareRows(Object[] a, Object[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            int c = Values.compare(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.length, b.length);
    }
}
