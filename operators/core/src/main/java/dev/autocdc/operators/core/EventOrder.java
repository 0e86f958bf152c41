package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order of one key's events (semantics §2, §6): by sequence, then system sequence, then upserts
 * before deletes, then the projected target columns in target order (nulls first, each type's
 * natural order), then the COLUMNS TO UPDATE list (our rule where the contract is silent: "all"
 * first, then the names of the written columns, sorted, compared as lists). Two events that compare
 * equal are exact duplicates: applying one or both has the same effect.
 */
public final class EventOrder implements Comparator<ChangeEvent> {
    private final Flow flow;

    public EventOrder(Flow flow) {
        this.flow = flow;
    }

    @Override
    public int compare(ChangeEvent a, ChangeEvent b) {
        int c = SequenceCodec.compare(a.sequence(), b.sequence());
        if (c != 0) {
            return c;
        }
        return compareAtSameSequence(a, b);
    }

    /**
     * The order of events sharing a business sequence: system sequence first, then the tie-break.
     */
    public int compareAtSameSequence(ChangeEvent a, ChangeEvent b) {
        int c = SequenceCodec.compare(a.systemSequence(), b.systemSequence());
        if (c != 0) {
            return c;
        }
        return compareTie(a, b);
    }

    /** The tie-break alone (semantics §6); 0 means exact duplicates. */
    public int compareTie(ChangeEvent a, ChangeEvent b) {
        int c = Integer.compare(a.op().tieRank(), b.op().tieRank());
        if (c != 0) {
            return c;
        }
        Object[] x = a.row();
        Object[] y = b.row();
        for (int i = 0; i < x.length; i++) {
            c = Values.compare(x[i], y[i]);
            if (c != 0) {
                return c;
            }
        }
        return compareColumnLists(a.columnsToUpdate(), b.columnsToUpdate());
    }

    private int compareColumnLists(boolean[] a, boolean[] b) {
        if (a == b) {
            return 0;
        }
        if (a == null) {
            return -1;
        }
        if (b == null) {
            return 1;
        }
        List<String> x = names(a);
        List<String> y = names(b);
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            int c = Values.compareStrings(x.get(i), y.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.size(), y.size());
    }

    private List<String> names(boolean[] mask) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < mask.length; i++) {
            if (mask[i]) {
                names.add(flow.columnNames().get(i));
            }
        }
        names.sort(Values::compareStrings);
        return names;
    }
}
