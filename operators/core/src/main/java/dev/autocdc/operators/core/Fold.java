package dev.autocdc.operators.core;

/**
 * The fold of semantics §2: the state of a key after one more event, in event order. A state is the
 * target's base row, or null for "absent".
 */
public final class Fold {
    private final Flow flow;

    public Fold(Flow flow) {
        this.flow = flow;
    }

    /** The state after applying {@code event} to {@code state}. Never modifies its arguments. */
    public Object[] apply(Object[] state, ChangeEvent event) {
        if (!event.isUpsert()) {
            return null;
        }
        Object[] in = event.row();
        if (flow.isFullRow()) {
            return in;
        }
        boolean[] written = event.columnsToUpdate();
        Object[] out = new Object[in.length];
        for (int i = 0; i < in.length; i++) {
            if (flow.isKey(i) || flow.isSequenceColumn(i)) {
                out[i] = in[i];
            } else if (state == null) {
                out[i] = written == null || written[i] ? in[i] : null;
            } else if (written != null && !written[i]) {
                out[i] = state[i];
            } else if (in[i] == null && flow.ignoresNull(i)) {
                out[i] = state[i];
            } else {
                out[i] = in[i];
            }
        }
        return out;
    }

    /** Whether the event sets this column's value in the state when the key is present. */
    public boolean writes(ChangeEvent event, int column) {
        if (!event.isUpsert()) {
            return false;
        }
        if (flow.isKey(column) || flow.isSequenceColumn(column)) {
            return true;
        }
        boolean[] written = event.columnsToUpdate();
        if (written != null && !written[column]) {
            return false;
        }
        return !(event.row()[column] == null && flow.ignoresNull(column));
    }

    /** Whether two present states have equal tracked columns (SCD2 / bitemporal: same version). */
    public boolean sameTracked(Object[] a, Object[] b) {
        for (int i = 0; i < a.length; i++) {
            if (flow.isTracked(i) && !Values.same(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }
}
