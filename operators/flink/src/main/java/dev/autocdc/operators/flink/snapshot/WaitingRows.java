package dev.autocdc.operators.flink.snapshot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;

/**
 * One key's rows waiting for their snapshots, as one value: by snapshot id, in snapshot order, the
 * key's rows of that snapshot as they arrived. A value never changes once built ({@link #with} and
 * {@link #remaining} build new ones), so a write-back cache may keep it by reference; only the hint
 * {@link #armed}, which is not stored, is set on a value kept.
 *
 * <p>It also carries what keyed state holds for the key, the bookkeeping of {@link
 * WaitingRowsState}: one holder shared by a value and every value built from it, which the state
 * updates when it reads or writes one of them, so that a write removes exactly the snapshots gone
 * and puts only those whose rows changed (a changed snapshot's rows are a new list; the others are
 * shared by reference).
 */
final class WaitingRows {
    /**
     * The lists of rows keyed state holds for the key, by snapshot id (as {@link
     * CompleteSnapshots#key}): the very lists read or written.
     */
    static final class Stored {
        Map<String, List<RowData>> lists;

        Stored(Map<String, List<RowData>> lists) {
            this.lists = lists;
        }
    }

    private final TreeMap<byte[], List<RowData>> bySnapshot;
    final Stored stored;

    /**
     * The time of an event-time timer the key is known to have (the one a catch-up re-armed), so
     * that a row of a snapshot at or after that time sets none: that timer fires first, and its
     * catch-up arms the key again for what waits. MIN_VALUE: none known. A hint kept on the heap
     * only: a value read from keyed state knows none.
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
        next.put(id, appended(bySnapshot.get(id), row));
        WaitingRows with = new WaitingRows(next, stored);
        with.armed = armed;
        return with;
    }

    /** A new unmodifiable list: {@code rows} (null: none), then {@code row}. */
    static List<RowData> appended(List<RowData> rows, RowData row) {
        List<RowData> all = new ArrayList<>(rows == null ? 1 : rows.size() + 1);
        if (rows != null) {
            all.addAll(rows);
        }
        all.add(row);
        return Collections.unmodifiableList(all);
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
