package dev.autocdc.operators.reference;

import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import dev.autocdc.operators.reference.ReferenceModel.Options;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A deliberately slow reference model of AUTO CDC FROM SNAPSHOT (semantics §10), written from the
 * specification alone, on top of {@link ReferenceModel}.
 *
 * <p>Contract. The input is a <em>bounded</em> collection of {@link SnapshotRow}s: every snapshot
 * is complete and the order of the rows is irrelevant (the result is a function of the multiset of
 * rows; §10 "Completeness", bounded source). A snapshot is the set of rows sharing a version
 * (bitemporal: a version and a system sequence). Let K be every key in any snapshot. Each snapshot
 * at version v becomes these change events (§10 "Meaning"):
 *
 * <ul>
 *   <li>an UPSERT at sequence v of each of its rows;
 *   <li>a DELETE at v of every key of K that the snapshot lacks;
 *   <li>bitemporal: both at the snapshot's system sequence.
 * </ul>
 *
 * The events are folded by {@link ReferenceModel#scd1}, {@link ReferenceModel#scd2} or {@link
 * ReferenceModel#bitemporal}; the tables have the shapes documented there.
 *
 * <p>Duplicates (§10 "Order"): rows of one key in one snapshot that are equal on the target's
 * columns (key and values) are one row. If a key has different rows in one snapshot, every one of
 * those rows is a dead letter ({@code duplicate_key_in_snapshot}) and the key's state is left as it
 * was before that snapshot: that snapshot yields neither an upsert nor a delete for the key.
 *
 * <p>Out of scope: unbounded sources, out-of-order snapshots ({@code snapshot_out_of_order}, which
 * cannot happen on bounded input), end rows ({@code APPLY AS SNAPSHOT END WHEN}; so a snapshot
 * without rows is not representable), rows with a null key or other bad input (§11): the model
 * throws {@link IllegalArgumentException} on those instead of dead-lettering them.
 *
 * <p>Decisions taken where the contract is silent are marked "DECISION" below.
 */
public final class SnapshotReference {

    private SnapshotReference() {}

    /** The reason code of §10's dead letters. */
    public static final String DUPLICATE_KEY_IN_SNAPSHOT = "duplicate_key_in_snapshot";

    /**
     * One row of one snapshot. key: Integer or String, never null; version: the snapshot's version
     * (SEQUENCE BY); sys: the snapshot's system sequence (SYSTEM SEQUENCE BY), null unless
     * bitemporal; values: the target's value columns (Options.valueColumns order), each a String,
     * an Integer or null.
     */
    public record SnapshotRow(Object key, int version, Integer sys, List<Object> values) {}

    /**
     * A target table (rows as in {@link ReferenceModel}) and the rows sent to the dead letters with
     * reason {@link #DUPLICATE_KEY_IN_SNAPSHOT}: every input occurrence, in a canonical order
     * (version, sys, key, values), so that the result does not depend on the input order.
     */
    public record Result(Set<List<Object>> table, List<SnapshotRow> deadLetters) {}

    /** SCD type 1 from snapshots. Every row's sys must be null. */
    public static Result scd1(Collection<SnapshotRow> rows, Options o) {
        Derived d = derive(rows, o, false);
        return new Result(ReferenceModel.scd1(d.events(), o), d.deadLetters());
    }

    /** SCD type 2 from snapshots. Every row's sys must be null. */
    public static Result scd2(Collection<SnapshotRow> rows, Options o) {
        Derived d = derive(rows, o, false);
        return new Result(ReferenceModel.scd2(d.events(), o), d.deadLetters());
    }

    /** Bitemporal from snapshots. Every row's sys must be non-null. */
    public static Result bitemporal(Collection<SnapshotRow> rows, Options o) {
        Derived d = derive(rows, o, true);
        return new Result(ReferenceModel.bitemporal(d.events(), o), d.deadLetters());
    }

    /**
     * The change events §10 derives from the snapshots, in a canonical order (version, sys, key,
     * upsert before delete). bitemporal: whether the rows carry system sequences (must match every
     * row's sys being non-null).
     */
    public static List<Event> events(Collection<SnapshotRow> rows, Options o, boolean bitemporal) {
        return derive(rows, o, bitemporal).events();
    }

    /** The dead letters alone (see {@link Result#deadLetters}). */
    public static List<SnapshotRow> deadLetters(
            Collection<SnapshotRow> rows, Options o, boolean bitemporal) {
        return derive(rows, o, bitemporal).deadLetters();
    }

    // ---------------------------------------------------------------------------------------------

    private record Derived(List<Event> events, List<SnapshotRow> deadLetters) {}

    /** A snapshot's identity: its version and (bitemporal) system sequence. */
    private record SnapshotId(int version, Integer sys) {}

    private static Derived derive(Collection<SnapshotRow> rows, Options o, boolean bitemporal) {
        validateOptions(o);
        for (SnapshotRow r : rows) {
            validateRow(r, o, bitemporal);
        }

        // K: every key of any snapshot.
        // DECISION: a key read from a dead-lettered row is in K too (§10: "every key that appears
        // in any snapshot"; a dead-lettered row whose key can be read still names its key). This
        // only adds deletes of a key that is never upserted, which have no effect on any target.
        Set<Object> allKeys = new LinkedHashSet<>();
        for (SnapshotRow r : rows) {
            allKeys.add(r.key());
        }

        // Snapshots, and within each the rows per key (a list, so the dead letters keep every
        // occurrence).
        Map<SnapshotId, Map<Object, List<SnapshotRow>>> snapshots = new LinkedHashMap<>();
        for (SnapshotRow r : rows) {
            snapshots
                    .computeIfAbsent(
                            new SnapshotId(r.version(), r.sys()), s -> new LinkedHashMap<>())
                    .computeIfAbsent(r.key(), k -> new ArrayList<>())
                    .add(r);
        }

        List<Event> events = new ArrayList<>();
        List<SnapshotRow> deadLetters = new ArrayList<>();
        List<Object> nulls = Collections.nCopies(o.valueColumns().size(), null);
        for (Map.Entry<SnapshotId, Map<Object, List<SnapshotRow>>> snapshot :
                snapshots.entrySet()) {
            SnapshotId id = snapshot.getKey();
            Map<Object, List<SnapshotRow>> byKey = snapshot.getValue();
            for (Object key : allKeys) {
                List<SnapshotRow> keyRows = byKey.get(key);
                if (keyRows == null) {
                    // DECISION: a delete's values are all null; they have no effect, and a key has
                    // at most one event per snapshot, so they never take part in a tie either.
                    events.add(new Event(key, id.version(), id.sys(), Kind.DELETE, nulls, null));
                    continue;
                }
                // Rows equal on the target's columns (key and values; version and sys are equal
                // within a snapshot) are one row.
                Set<List<Object>> distinctValues = new LinkedHashSet<>();
                for (SnapshotRow r : keyRows) {
                    distinctValues.add(r.values());
                }
                if (distinctValues.size() == 1) {
                    events.add(
                            new Event(
                                    key,
                                    id.version(),
                                    id.sys(),
                                    Kind.UPSERT,
                                    nullTolerantCopy(keyRows.get(0).values()),
                                    null));
                } else {
                    // Different rows of one key in one snapshot: all are dead letters, and the key
                    // gets no event at this snapshot, so its state is what the other snapshots
                    // make it (as it was before this one, in fold order).
                    // DECISION: every input occurrence is a dead letter, including exact copies
                    // among the conflicting rows (each is a record that does not reach the
                    // target, and none of them may be lost, §11).
                    deadLetters.addAll(keyRows);
                }
            }
        }
        events.sort(EVENT_ORDER);
        deadLetters.sort(ROW_ORDER);
        return new Derived(List.copyOf(events), List.copyOf(deadLetters));
    }

    /** List.copyOf rejects nulls; values may hold nulls. */
    private static List<Object> nullTolerantCopy(List<Object> values) {
        return Collections.unmodifiableList(new ArrayList<>(values));
    }

    private static final Comparator<Event> EVENT_ORDER =
            (a, b) -> {
                int c = Integer.compare(a.seq(), b.seq());
                if (c == 0) {
                    c = ReferenceModel.compareValues(a.sys(), b.sys());
                }
                if (c == 0) {
                    c = ReferenceModel.compareValues(a.key(), b.key());
                }
                if (c == 0) {
                    c = a.kind().compareTo(b.kind());
                }
                return c;
            };

    private static final Comparator<SnapshotRow> ROW_ORDER =
            (a, b) -> {
                int c = Integer.compare(a.version(), b.version());
                if (c == 0) {
                    c = ReferenceModel.compareValues(a.sys(), b.sys());
                }
                if (c == 0) {
                    c = ReferenceModel.compareValues(a.key(), b.key());
                }
                for (int i = 0; c == 0 && i < a.values().size(); i++) {
                    c = ReferenceModel.compareValues(a.values().get(i), b.values().get(i));
                }
                return c;
            };

    // ---------------------------------------------------------------------------------------------
    // Guard rails
    // ---------------------------------------------------------------------------------------------

    private static void validateOptions(Options o) {
        // §10: IGNORE NULL UPDATES and COLUMNS TO UPDATE are refused for snapshot flows.
        if (o.ignoreNullColumns() != null && !o.ignoreNullColumns().isEmpty()) {
            throw new IllegalArgumentException("IGNORE NULL UPDATES is refused for snapshots");
        }
        if (o.columnsToUpdate()) {
            throw new IllegalArgumentException("COLUMNS TO UPDATE is refused for snapshots");
        }
        // The rest (valueColumns, trackedColumns, sequence columns) is validated by
        // ReferenceModel, which also checks that a kept version / system sequence column holds the
        // row's version / sys.
    }

    private static void validateRow(SnapshotRow r, Options o, boolean bitemporal) {
        if (r.key() == null) {
            // §10/§11: a row whose key cannot be read is a dead letter that changes nothing; bad
            // input is out of this model's scope.
            throw new IllegalArgumentException("null key (bad input, out of scope): " + r);
        }
        if (!(r.key() instanceof Integer) && !(r.key() instanceof String)) {
            throw new IllegalArgumentException("key must be an Integer or a String: " + r);
        }
        // DECISION: outside bitemporal a snapshot is identified by its version alone, so a system
        // sequence there is a caller error rather than silently ignored (it would otherwise split
        // one version into several snapshots).
        if (bitemporal != (r.sys() != null)) {
            throw new IllegalArgumentException(
                    (bitemporal ? "bitemporal row without" : "non-bitemporal row with")
                            + " a system sequence: "
                            + r);
        }
        if (r.values() == null || r.values().size() != o.valueColumns().size()) {
            throw new IllegalArgumentException(
                    "row must have " + o.valueColumns().size() + " values: " + r);
        }
        for (Object v : r.values()) {
            if (v != null && !(v instanceof Integer) && !(v instanceof String)) {
                throw new IllegalArgumentException("values must be Integer, String or null: " + r);
            }
        }
    }
}
