package dev.autocdc.operators.core;

import java.util.Arrays;

/**
 * One change to the target table: an insert (after only), an update of the row with the same
 * primary key (before and after), or a delete (before only). {@code before} is exactly the row
 * previously emitted for that key, so a sink can retract it (semantics §8).
 */
public final class TargetChange {
    /** The kind of change. */
    public enum Kind {
        INSERT,
        UPDATE,
        DELETE
    }

    private final Kind kind;
    private final Object[] before;
    private final Object[] after;

    private TargetChange(Kind kind, Object[] before, Object[] after) {
        this.kind = kind;
        this.before = before;
        this.after = after;
    }

    public static TargetChange insert(Object[] row) {
        return new TargetChange(Kind.INSERT, null, row);
    }

    public static TargetChange update(Object[] before, Object[] after) {
        return new TargetChange(Kind.UPDATE, before, after);
    }

    public static TargetChange delete(Object[] row) {
        return new TargetChange(Kind.DELETE, row, null);
    }

    public Kind kind() {
        return kind;
    }

    public Object[] before() {
        return before;
    }

    public Object[] after() {
        return after;
    }

    @Override
    public String toString() {
        switch (kind) {
            case INSERT:
                return "+I" + Arrays.deepToString(after);
            case DELETE:
                return "-D" + Arrays.deepToString(before);
            default:
                return "-U" + Arrays.deepToString(before) + " +U" + Arrays.deepToString(after);
        }
    }
}
