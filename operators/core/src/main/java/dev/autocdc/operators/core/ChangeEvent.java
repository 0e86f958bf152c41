package dev.autocdc.operators.core;

import java.util.Arrays;

/**
 * One source event after projection: what it does, the target's base columns it carries, its
 * sequence (and system sequence, bitemporal) in the order-preserving encoding of {@link
 * SequenceCodec}, and, with COLUMNS TO UPDATE, the base columns it writes. Immutable by convention:
 * nobody mutates the arrays after construction.
 */
public final class ChangeEvent {
    private final Op op;
    private final Object[] row;
    private final byte[] sequence;
    private final byte[] systemSequence;
    private final boolean[] columnsToUpdate;

    /**
     * @param row the target's base columns (keys and values, target order)
     * @param sequence encoded SEQUENCE BY, never null
     * @param systemSequence encoded SYSTEM SEQUENCE BY, null unless bitemporal
     * @param columnsToUpdate per base column, whether the event writes it; null = all (or no
     *     COLUMNS TO UPDATE)
     */
    public ChangeEvent(
            Op op,
            Object[] row,
            byte[] sequence,
            byte[] systemSequence,
            boolean[] columnsToUpdate) {
        this.op = op;
        this.row = row;
        this.sequence = sequence;
        this.systemSequence = systemSequence;
        this.columnsToUpdate = columnsToUpdate;
    }

    public Op op() {
        return op;
    }

    public boolean isUpsert() {
        return op == Op.UPSERT;
    }

    /** The base columns; do not modify. */
    public Object[] row() {
        return row;
    }

    public byte[] sequence() {
        return sequence;
    }

    public byte[] systemSequence() {
        return systemSequence;
    }

    /** Null = the event writes every column. */
    public boolean[] columnsToUpdate() {
        return columnsToUpdate;
    }

    /** The same event as a delete at the same sequences (a truncate applied to one key). */
    public ChangeEvent withOp(Op newOp) {
        return new ChangeEvent(newOp, row, sequence, systemSequence, columnsToUpdate);
    }

    @Override
    public String toString() {
        return op
                + Arrays.deepToString(row)
                + "@"
                + Arrays.toString(sequence)
                + (systemSequence == null ? "" : "/" + Arrays.toString(systemSequence))
                + (columnsToUpdate == null ? "" : " cols" + Arrays.toString(columnsToUpdate));
    }
}
