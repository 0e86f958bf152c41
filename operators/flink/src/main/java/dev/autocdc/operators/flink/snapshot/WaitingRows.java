package dev.autocdc.operators.flink.snapshot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;

/**
 * One key's rows waiting for their snapshots, as one value: by snapshot id, in snapshot order, the
 * key's rows of that snapshot as they arrived. A value never changes once built ({@link #with} and
 * {@link #remaining} build new ones), so a write-back cache may keep it by reference; only the hint
 * {@link #armed}, which is not stored, is set on a value kept.
 *
 * <p>It also carries which snapshot ids keyed state holds for the key, the bookkeeping of {@link
 * WaitingRowsState}: one holder shared by a value and every value built from it, which the state
 * updates when it reads or writes one of them, so that a write removes exactly the ids gone.
 */
final class WaitingRows {
    /** The snapshot ids (as {@link CompleteSnapshots#key}) keyed state holds for the key. */
    static final class Stored {
        Set<String> ids;

        Stored(Set<String> ids) {
            this.ids = ids;
        }
    }

    private final TreeMap<byte[], List<RowData>> bySnapshot;
    final Stored stored;

    /**
     * The time of an event-time timer the key is known to have (the one a catch-up re-armed), so
     * that a row of a snapshot at that time sets none again; MIN_VALUE: none known. A hint kept on
     * the heap only: a value read from keyed state knows none.
     */
    long armed = Long.MIN_VALUE;

    WaitingRows(TreeMap<byte[], List<RowData>> bySnapshot, Stored stored) {
        this.bySnapshot = bySnapshot;
        this.stored = stored;
    }

    /** The key's rows of snapshot {@code id}; null: none. */
    List<RowData> rows(byte[] id) {
        return bySnapshot.get(id);
    }

    boolean isEmpty() {
        return bySnapshot.isEmpty();
    }

    int snapshots() {
        return bySnapshot.size();
    }

    /** Every snapshot's rows, unmodifiable. */
    SortedMap<byte[], List<RowData>> all() {
        return Collections.unmodifiableSortedMap(bySnapshot);
    }

    /** These rows and {@code row} of snapshot {@code id}, after the others of it. */
    WaitingRows with(byte[] id, RowData row) {
        TreeMap<byte[], List<RowData>> next = new TreeMap<>(bySnapshot);
        List<RowData> old = bySnapshot.get(id);
        List<RowData> rows = new ArrayList<>(old == null ? 1 : old.size() + 1);
        if (old != null) {
            rows.addAll(old);
        }
        rows.add(row);
        next.put(id, Collections.unmodifiableList(rows));
        WaitingRows with = new WaitingRows(next, stored);
        with.armed = armed;
        return with;
    }

    /** A copy of the rows by snapshot, to take the applied and dropped snapshots out of. */
    TreeMap<byte[], List<RowData>> edit() {
        return new TreeMap<>(bySnapshot);
    }

    /** The rows {@code left} of these after some snapshots left ({@link #edit}). */
    WaitingRows remaining(TreeMap<byte[], List<RowData>> left) {
        WaitingRows remaining = new WaitingRows(new TreeMap<>(left), stored);
        remaining.armed = armed;
        return remaining;
    }
}
