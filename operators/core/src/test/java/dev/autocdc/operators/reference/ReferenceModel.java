package dev.autocdc.operators.reference;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A deliberately slow, obviously-correct reference model of AUTO CDC (semantics §2-§6), written
 * from the specification alone, for property tests of the real engine.
 *
 * <p>Everything is recomputed from the <em>set</em> of events on each call; there is no incremental
 * state, no tombstone retention (§7) and no bad-input handling (§11). Each definition of the
 * contract is implemented literally, even where that costs quadratic or cubic time:
 *
 * <ul>
 *   <li>{@link #stateAsOf} is §2's "state as of sequence x";
 *   <li>{@link #scd2Versions} is §4's run-length encoding of that state over the key's distinct
 *       sequences;
 *   <li>{@link #bitemporal} builds §4's table for every system time of a key (the "belief") and
 *       finds, for each row identity, the maximal runs of consecutive system times over which it is
 *       believed (§5).
 * </ul>
 *
 * <p>Decisions taken where the contract is silent are marked "DECISION" below.
 */
public final class ReferenceModel {

    private ReferenceModel() {}

    public enum Kind {
        UPSERT,
        DELETE,
        TRUNCATE
    }

    /**
     * One source event after the COLUMNS projection. key: Integer or String (null only for
     * TRUNCATE); seq: business sequence (SEQUENCE BY); sys: system sequence (SYSTEM SEQUENCE BY),
     * null unless bitemporal; values: the target's value columns (Options.valueColumns order), each
     * a String, an Integer or null; for DELETE/TRUNCATE the values are still part of the event's
     * identity (tie order) but have no effect; columnsToUpdate: only when Options.columnsToUpdate
     * is true: null = all value columns, otherwise the set of value-column names this event writes
     * (may be empty).
     */
    public record Event(
            Object key,
            int seq,
            Integer sys,
            Kind kind,
            List<Object> values,
            Set<String> columnsToUpdate) {}

    /**
     * valueColumns: the target's non-key columns, in target order (target column order = key first,
     * then these). ignoreNullColumns: value columns under IGNORE NULL UPDATES (empty set = option
     * off). columnsToUpdate: COLUMNS TO UPDATE is on (then Event.columnsToUpdate applies).
     * trackedColumns: TRACK HISTORY columns; null = all value columns. Sequence columns are never
     * tracked (semantics §4) even if listed. sequenceColumn / systemSequenceColumn: null, or the
     * name of a value column that holds the event's seq / sys (a sequence column kept in the
     * target; its value in every event equals seq / sys).
     */
    public record Options(
            List<String> valueColumns,
            Set<String> ignoreNullColumns,
            boolean columnsToUpdate,
            Set<String> trackedColumns,
            String sequenceColumn,
            String systemSequenceColumn) {}

    // ---------------------------------------------------------------------------------------------
    // The three targets
    // ---------------------------------------------------------------------------------------------

    /** SCD1 target: rows [key, v1..vn]. */
    public static Set<List<Object>> scd1(Collection<Event> events, Options o) {
        validateOptions(o);
        Set<Event> distinct = distinctEvents(events, o, false);
        // A TRUNCATE is a DELETE at its sequence for every key (semantics §1); its own key is
        // ignored.
        List<Event> truncates = new ArrayList<>();
        for (Event e : distinct) {
            if (e.kind() == Kind.TRUNCATE) {
                truncates.add(e);
            }
        }
        Map<Object, List<Event>> byKey = groupByKey(distinct);
        Set<List<Object>> rows = new LinkedHashSet<>();
        for (Map.Entry<Object, List<Event>> entry : byKey.entrySet()) {
            List<Event> keyEvents = new ArrayList<>(entry.getValue());
            keyEvents.addAll(truncates);
            keyEvents.sort(eventOrder(false));
            // semantics §3: one row per key whose state as of +infinity is present.
            List<Object> state = stateAsOf(keyEvents, Integer.MAX_VALUE, o);
            if (state != null) {
                rows.add(row(entry.getKey(), state));
            }
        }
        return rows;
    }

    /** SCD2 target: rows [key, v1..vn, __START_AT (Integer), __END_AT (Integer or null)]. */
    public static Set<List<Object>> scd2(Collection<Event> events, Options o) {
        validateOptions(o);
        Set<Event> distinct = distinctEvents(events, o, false);
        rejectTruncates(distinct, "SCD TYPE 2");
        Set<List<Object>> rows = new LinkedHashSet<>();
        for (Map.Entry<Object, List<Event>> entry : groupByKey(distinct).entrySet()) {
            List<Event> keyEvents = new ArrayList<>(entry.getValue());
            keyEvents.sort(eventOrder(false));
            for (Version v : scd2Versions(keyEvents, o)) {
                rows.add(row(entry.getKey(), v.state(), v.start(), v.end()));
            }
        }
        return rows;
    }

    /**
     * Bitemporal target: rows [key, v1..vn, __START_AT, __END_AT, __SYSTEM_START_AT,
     * __SYSTEM_END_AT].
     */
    public static Set<List<Object>> bitemporal(Collection<Event> events, Options o) {
        validateOptions(o);
        Set<Event> distinct = distinctEvents(events, o, true);
        rejectTruncates(distinct, "BITEMPORAL");
        Set<List<Object>> rows = new LinkedHashSet<>();
        for (Map.Entry<Object, List<Event>> entry : groupByKey(distinct).entrySet()) {
            Object key = entry.getKey();
            List<Event> keyEvents = new ArrayList<>(entry.getValue());
            keyEvents.sort(eventOrder(true));

            // The key's distinct system times, ascending. Other keys' system times are irrelevant:
            // a key's beliefs can only change at its own system times.
            List<Integer> times = new ArrayList<>(new TreeSet<Integer>(sysTimes(keyEvents)));

            // belief(t) = the SCD2 table (§4) of the key's events with sys <= t, indexed by row
            // identity (business interval + tracked columns, §5). The sort above puts equal
            // business sequences in system-sequence order, so a later-recorded event corrects an
            // earlier one at the same seq.
            List<Map<List<Object>, Version>> beliefs = new ArrayList<>();
            for (int t : times) {
                List<Event> known = new ArrayList<>();
                for (Event e : keyEvents) {
                    if (e.sys() <= t) {
                        known.add(e);
                    }
                }
                Map<List<Object>, Version> belief = new LinkedHashMap<>();
                for (Version v : scd2Versions(known, o)) {
                    Version previous = belief.put(identity(v, o), v);
                    if (previous != null) {
                        throw new IllegalStateException(
                                "two rows with one identity in one belief: " + v + ", " + previous);
                    }
                }
                beliefs.add(belief);
            }

            // Every identity ever believed, and each maximal run of consecutive system times
            // believing it.
            Set<List<Object>> identities = new LinkedHashSet<>();
            for (Map<List<Object>, Version> belief : beliefs) {
                identities.addAll(belief.keySet());
            }
            for (List<Object> id : identities) {
                int j = 0;
                while (j < times.size()) {
                    if (!beliefs.get(j).containsKey(id)) {
                        j++;
                        continue;
                    }
                    int first = j;
                    while (j < times.size() && beliefs.get(j).containsKey(id)) {
                        j++;
                    }
                    int last = j - 1;
                    // Untracked columns: their value in the latest belief of the system interval.
                    Version v = beliefs.get(last).get(id);
                    Integer systemStart = times.get(first);
                    Integer systemEnd = j < times.size() ? times.get(j) : null;
                    rows.add(row(key, v.state(), v.start(), v.end(), systemStart, systemEnd));
                }
            }
        }
        return rows;
    }

    // ---------------------------------------------------------------------------------------------
    // §2 the fold, §4 the run-length encoding
    // ---------------------------------------------------------------------------------------------

    /**
     * One SCD2 row: business interval [start, end) and the state as of the last sequence inside it.
     */
    private record Version(int start, Integer end, List<Object> state) {}

    /**
     * semantics §2: apply, in the given (already sorted) order, every event whose sequence is <= x,
     * starting from absent. Returns null for absent, otherwise the value columns.
     */
    private static List<Object> stateAsOf(List<Event> sortedEvents, int x, Options o) {
        List<Object> state = null;
        for (Event e : sortedEvents) {
            if (e.seq() <= x) {
                state = apply(state, e, o);
            }
        }
        return state;
    }

    /** One step of the fold. */
    private static List<Object> apply(List<Object> state, Event e, Options o) {
        if (e.kind() != Kind.UPSERT) {
            return null; // delete or truncate: absent
        }
        List<String> columns = o.valueColumns();
        List<Object> next = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            String column = columns.get(i);
            Object incoming = e.values().get(i);
            boolean sequenceColumn =
                    column.equals(o.sequenceColumn()) || column.equals(o.systemSequenceColumn());
            boolean notNamed =
                    o.columnsToUpdate()
                            && e.columnsToUpdate() != null
                            && !e.columnsToUpdate().contains(column);
            boolean ignoredNull = incoming == null && o.ignoreNullColumns().contains(column);
            if (sequenceColumn) {
                // Sequence columns kept in the target always take the event's value (semantics §1,
                // §2).
                // DECISION: also on an upsert on absent, and also when COLUMNS TO UPDATE does not
                // name them.
                next.add(incoming);
            } else if (state == null) {
                // Upsert on absent: the event's columns; those not named by COLUMNS TO UPDATE are
                // null. (A null in an IGNORE NULL UPDATES column has nothing to keep: it stays
                // null.)
                next.add(notNamed ? null : incoming);
            } else if (notNamed || ignoredNull) {
                next.add(state.get(i)); // kept
            } else {
                next.add(incoming);
            }
        }
        return next;
    }

    /**
     * semantics §4 for one key: the state as of x is constant between the key's distinct sequences,
     * so evaluate it at each distinct sequence and run-length encode: a maximal run of consecutive
     * distinct sequences where the state is present and its tracked columns are equal is one row,
     * [first seq of the run, next distinct seq after the run or null). The row shows the state as
     * of the last sequence inside the run.
     */
    private static List<Version> scd2Versions(List<Event> sortedEvents, Options o) {
        List<Integer> seqs = new ArrayList<>(new TreeSet<Integer>(seqs(sortedEvents)));
        List<Version> versions = new ArrayList<>();
        Integer runStart = null; // null: no open run
        List<Object> runState = null; // state as of the latest sequence of the open run
        for (int s : seqs) {
            List<Object> state = stateAsOf(sortedEvents, s, o);
            boolean continuesRun =
                    runStart != null
                            && state != null
                            && Objects.equals(tracked(state, o), tracked(runState, o));
            if (continuesRun) {
                runState = state;
                continue;
            }
            if (runStart != null) {
                versions.add(
                        new Version(
                                runStart, s,
                                runState)); // closed at s: absent, or tracked columns changed
                runStart = null;
                runState = null;
            }
            if (state != null) {
                runStart = s;
                runState = state;
            }
        }
        if (runStart != null) {
            versions.add(new Version(runStart, null, runState));
        }
        return versions;
    }

    /**
     * The tracked columns of a state, in target order. Sequence columns are never tracked
     * (semantics §4).
     */
    private static List<Object> tracked(List<Object> state, Options o) {
        List<Object> out = new ArrayList<>();
        List<String> columns = o.valueColumns();
        for (int i = 0; i < columns.size(); i++) {
            if (isTracked(columns.get(i), o)) {
                out.add(state.get(i));
            }
        }
        return out;
    }

    private static boolean isTracked(String column, Options o) {
        if (column.equals(o.sequenceColumn()) || column.equals(o.systemSequenceColumn())) {
            return false;
        }
        return o.trackedColumns() == null || o.trackedColumns().contains(column);
    }

    /**
     * Bitemporal row identity (semantics §5): business interval and tracked columns (the key is
     * implied).
     */
    private static List<Object> identity(Version v, Options o) {
        List<Object> id = new ArrayList<>();
        id.add(v.start());
        id.add(v.end());
        id.addAll(tracked(v.state(), o));
        return id;
    }

    // ---------------------------------------------------------------------------------------------
    // §6 order and duplicates
    // ---------------------------------------------------------------------------------------------

    /**
     * The order of one key's events: seq; then sys (bitemporal only); then upserts before
     * deletes/truncates; then the projected target columns in target order (key, then values),
     * nulls first, Strings by unsigned UTF-8 bytes, Integers numerically; then (DECISION, the
     * contract is silent) columnsToUpdate: null first, then the sorted list of names, compared
     * element by element, a proper prefix first.
     *
     * <p>DECISION: to make the order total, events still equal after all that are ordered by kind
     * (DELETE before TRUNCATE) and, outside bitemporal, by sys. Such events have identical effects,
     * so this never changes a result.
     */
    private static Comparator<Event> eventOrder(boolean bitemporal) {
        return (a, b) -> {
            int c = Integer.compare(a.seq(), b.seq());
            if (c != 0) {
                return c;
            }
            if (bitemporal) {
                c = compareValues(a.sys(), b.sys());
                if (c != 0) {
                    return c;
                }
            }
            c = Integer.compare(kindRank(a.kind()), kindRank(b.kind()));
            if (c != 0) {
                return c;
            }
            c = compareValues(a.key(), b.key());
            if (c != 0) {
                return c;
            }
            c = compareLists(a.values(), b.values());
            if (c != 0) {
                return c;
            }
            c = compareColumnsToUpdate(a.columnsToUpdate(), b.columnsToUpdate());
            if (c != 0) {
                return c;
            }
            c = Integer.compare(a.kind().ordinal(), b.kind().ordinal());
            if (c != 0) {
                return c;
            }
            return bitemporal ? 0 : compareValues(a.sys(), b.sys());
        };
    }

    private static int kindRank(Kind k) {
        return k == Kind.UPSERT ? 0 : 1;
    }

    private static int compareColumnsToUpdate(Set<String> a, Set<String> b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        List<Object> la = new ArrayList<>(a);
        List<Object> lb = new ArrayList<>(b);
        la.sort(ReferenceModel::compareValues);
        lb.sort(ReferenceModel::compareValues);
        return compareLists(la, lb);
    }

    /** Element by element; a proper prefix first. */
    private static int compareLists(List<Object> a, List<Object> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = compareValues(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /**
     * Nulls first; Integers numerically; Strings by unsigned UTF-8 bytes; (never needed) Integers
     * before Strings. Also the canonical order of {@link SnapshotReference}'s output.
     */
    static int compareValues(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        if (a instanceof Integer x && b instanceof Integer y) {
            return Integer.compare(x, y);
        }
        if (a instanceof String x && b instanceof String y) {
            byte[] bx = x.getBytes(StandardCharsets.UTF_8);
            byte[] by = y.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < Math.min(bx.length, by.length); i++) {
                int c = Integer.compare(Byte.toUnsignedInt(bx[i]), Byte.toUnsignedInt(by[i]));
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(bx.length, by.length);
        }
        return Integer.compare(typeRank(a), typeRank(b));
    }

    private static int typeRank(Object v) {
        if (v instanceof Integer) {
            return 0;
        }
        if (v instanceof String) {
            return 1;
        }
        throw new IllegalArgumentException(
                "values must be Integer, String or null, got " + v.getClass());
    }

    /** Duplicates (equal in every field) count once (semantics §6). Also validates each event. */
    private static Set<Event> distinctEvents(
            Collection<Event> events, Options o, boolean bitemporal) {
        Set<Event> distinct = new LinkedHashSet<>();
        for (Event e : events) {
            validateEvent(e, o, bitemporal);
            distinct.add(e);
        }
        return distinct;
    }

    /** Non-truncate events grouped by key. */
    private static Map<Object, List<Event>> groupByKey(Set<Event> events) {
        Map<Object, List<Event>> byKey = new LinkedHashMap<>();
        for (Event e : events) {
            if (e.kind() != Kind.TRUNCATE) {
                byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
            }
        }
        return byKey;
    }

    private static List<Integer> seqs(List<Event> events) {
        List<Integer> out = new ArrayList<>();
        for (Event e : events) {
            out.add(e.seq());
        }
        return out;
    }

    private static List<Integer> sysTimes(List<Event> events) {
        List<Integer> out = new ArrayList<>();
        for (Event e : events) {
            out.add(e.sys());
        }
        return out;
    }

    private static List<Object> row(Object key, List<Object> state, Object... extra) {
        Object[] cells = new Object[1 + state.size() + extra.length];
        cells[0] = key;
        for (int i = 0; i < state.size(); i++) {
            cells[1 + i] = state.get(i);
        }
        System.arraycopy(extra, 0, cells, 1 + state.size(), extra.length);
        return Arrays.asList(cells);
    }

    // ---------------------------------------------------------------------------------------------
    // Guard rails: the model only accepts what the contract defines (bad input, §11, is out of
    // scope)
    // ---------------------------------------------------------------------------------------------

    private static void validateOptions(Options o) {
        List<String> columns = o.valueColumns();
        if (columns == null || new HashSet<>(columns).size() != columns.size()) {
            throw new IllegalArgumentException(
                    "valueColumns must be a list of distinct names: " + columns);
        }
        if (o.ignoreNullColumns() == null) {
            throw new IllegalArgumentException("ignoreNullColumns must not be null (empty = off)");
        }
        requireKnown(o.ignoreNullColumns(), columns, "ignoreNullColumns");
        if (o.trackedColumns() != null) {
            requireKnown(o.trackedColumns(), columns, "trackedColumns");
        }
        if (o.sequenceColumn() != null && !columns.contains(o.sequenceColumn())) {
            throw new IllegalArgumentException(
                    "sequenceColumn is not a value column: " + o.sequenceColumn());
        }
        if (o.systemSequenceColumn() != null && !columns.contains(o.systemSequenceColumn())) {
            throw new IllegalArgumentException(
                    "systemSequenceColumn is not a value column: " + o.systemSequenceColumn());
        }
    }

    private static void requireKnown(Set<String> names, List<String> columns, String what) {
        if (names != null && !columns.containsAll(names)) {
            throw new IllegalArgumentException(
                    what + " names a column that is not a value column: " + names);
        }
    }

    private static void validateEvent(Event e, Options o, boolean bitemporal) {
        if (e.kind() == null || e.values() == null) {
            throw new IllegalArgumentException("event without kind or values: " + e);
        }
        if (e.key() == null && e.kind() != Kind.TRUNCATE) {
            throw new IllegalArgumentException("null key outside a TRUNCATE: " + e);
        }
        if (bitemporal && e.sys() == null) {
            throw new IllegalArgumentException("bitemporal event without a system sequence: " + e);
        }
        if (e.values().size() != o.valueColumns().size()) {
            throw new IllegalArgumentException(
                    "event has "
                            + e.values().size()
                            + " values, target has "
                            + o.valueColumns().size()
                            + " value columns: "
                            + e);
        }
        compareValues(e.key(), e.key()); // type check
        for (Object v : e.values()) {
            compareValues(v, v); // type check
        }
        if (e.columnsToUpdate() != null) {
            requireKnown(e.columnsToUpdate(), o.valueColumns(), "Event.columnsToUpdate");
        }
        if (e.kind() == Kind.UPSERT) {
            if (o.sequenceColumn() != null
                    && !Objects.equals(
                            e.values().get(o.valueColumns().indexOf(o.sequenceColumn())),
                            e.seq())) {
                throw new IllegalArgumentException("sequence column value differs from seq: " + e);
            }
            if (o.systemSequenceColumn() != null
                    && !Objects.equals(
                            e.values().get(o.valueColumns().indexOf(o.systemSequenceColumn())),
                            e.sys())) {
                throw new IllegalArgumentException(
                        "system sequence column value differs from sys: " + e);
            }
        }
    }

    private static void rejectTruncates(Set<Event> events, String target) {
        for (Event e : events) {
            if (e.kind() == Kind.TRUNCATE) {
                throw new IllegalArgumentException(
                        "TRUNCATE is SCD TYPE 1 only, not " + target + " (semantics §1): " + e);
            }
        }
    }
}
