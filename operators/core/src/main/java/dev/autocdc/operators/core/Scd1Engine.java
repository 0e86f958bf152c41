package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * SCD type 1 (semantics §3) for one key. The key's state is the short, sorted list of the events
 * that still decide its row: the last delete (the tombstone, semantics §7), the last event, and for
 * each column the last event after that delete that wrote it. Folding that list gives the same row
 * as folding every event of the key (an event older than the last delete is wiped by it; an upsert
 * that is no column's last writer is overwritten everywhere). For full-row flows the list holds at
 * most two events, so every event, late or not, costs O(1).
 *
 * <p>An instance applies one event at a time (it keeps its working list and bitmap between events).
 */
public final class Scd1Engine {
    private final Fold fold;
    private final EventOrder order;
    private final int columns;
    private final EngineCounters counters;

    /** {@link #apply}'s merge of the state and the event, cleared per event (never returned). */
    private final List<ChangeEvent> merged = new ArrayList<>(4);

    /** {@link #decisive}'s columns written so far, cleared per call. */
    private final boolean[] covered;

    public Scd1Engine(Flow flow, EngineCounters counters) {
        this.counters = counters;
        this.fold = new Fold(flow);
        this.order = new EventOrder(flow);
        this.columns = flow.columnCount();
        this.covered = new boolean[columns];
    }

    /**
     * Applies one event. Returns the key's new decisive events ({@code state} itself when the event
     * changes nothing, e.g. a duplicate or an event older than the tombstone) and appends the
     * target changes to {@code out}.
     *
     * @param state the key's decisive events, ascending; null or empty for a new key
     */
    public List<ChangeEvent> apply(
            List<ChangeEvent> state, ChangeEvent event, List<TargetChange> out) {
        List<ChangeEvent> all = merged;
        all.clear();
        boolean inserted = false;
        if (state != null) {
            for (int i = 0; i < state.size(); i++) { // (no iterator: once per event)
                ChangeEvent e = state.get(i);
                if (!inserted) {
                    int c = order.compare(event, e);
                    if (c == 0) {
                        counters.countDuplicate();
                        return state; // exact duplicate: no effect at all
                    }
                    if (Arrays.equals(event.sequence(), e.sequence())) {
                        counters.countConflictingTie();
                    }
                    if (c < 0) {
                        all.add(event);
                        inserted = true;
                    }
                }
                all.add(e);
            }
        }
        if (!inserted) {
            all.add(event);
        } else if (SequenceCodec.compare(event.sequence(), all.get(all.size() - 1).sequence())
                < 0) {
            counters.countLate();
        }
        List<ChangeEvent> next = decisive(all);
        if (state != null && next.size() == state.size() && !next.contains(event)) {
            return state; // the event decides nothing (older than the tombstone, or overwritten)
        }
        Object[] before = row(state);
        Object[] after = row(next);
        if (before == null && after != null) {
            out.add(TargetChange.insert(after));
        } else if (before != null && after == null) {
            out.add(TargetChange.delete(before));
        } else if (before != null && !Values.sameRow(before, after)) {
            out.add(TargetChange.update(before, after));
        }
        return next;
    }

    /** The target row of a key's decisive events; null when the key is absent. */
    public Object[] row(List<ChangeEvent> state) {
        if (state == null) {
            return null;
        }
        Object[] row = null;
        for (int i = 0; i < state.size(); i++) { // (no iterator: once per event)
            row = fold.apply(row, state.get(i));
        }
        return row;
    }

    /** Whether the key's last event is a delete: the state is a tombstone (semantics §7). */
    public static boolean isTombstone(List<ChangeEvent> state) {
        return state != null && !state.isEmpty() && !state.get(state.size() - 1).isUpsert();
    }

    private List<ChangeEvent> decisive(List<ChangeEvent> sorted) {
        boolean[] covered = this.covered;
        Arrays.fill(covered, false);
        int uncovered = columns;
        List<ChangeEvent> keep = new ArrayList<>(4);
        for (int i = sorted.size() - 1; i >= 0; i--) {
            ChangeEvent e = sorted.get(i);
            if (!e.isUpsert()) {
                keep.add(e);
                break;
            }
            boolean needed = i == sorted.size() - 1;
            for (int c = 0; c < columns && uncovered > 0; c++) {
                if (!covered[c] && fold.writes(e, c)) {
                    covered[c] = true;
                    uncovered--;
                    needed = true;
                }
            }
            if (needed) {
                keep.add(e);
            }
        }
        Collections.reverse(keep);
        return keep;
    }
}
