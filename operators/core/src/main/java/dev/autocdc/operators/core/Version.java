package dev.autocdc.operators.core;

import java.util.Arrays;

/**
 * One SCD2 row (semantics §4): a maximal business interval [start, end) on which the key is present
 * with constant tracked columns, and the state at the last sequence inside it. {@code end} is null
 * while open. Sequences are in {@link SequenceCodec} form.
 */
public final class Version {
    private final byte[] start;
    private final byte[] end;
    private final Object[] row;

    public Version(byte[] start, byte[] end, Object[] row) {
        this.start = start;
        this.end = end;
        this.row = row;
    }

    public byte[] start() {
        return start;
    }

    public byte[] end() {
        return end;
    }

    public Object[] row() {
        return row;
    }

    public boolean isOpen() {
        return end == null;
    }

    public Version withEnd(byte[] newEnd) {
        return new Version(start, newEnd, row);
    }

    public Version withRow(Object[] newRow) {
        return new Version(start, end, newRow);
    }

    /** Same start, end and row (values compared as IS NOT DISTINCT FROM). */
    public boolean sameAs(Version other) {
        return Arrays.equals(start, other.start)
                && Arrays.equals(end, other.end)
                && Values.sameRow(row, other.row);
    }

    /**
     * The target row: base columns, then __START_AT and __END_AT decoded to the sequence's type.
     */
    public Object[] toTargetRow(SequenceCodec codec) {
        return targetRow(row, codec.decode(start), end == null ? null : codec.decode(end));
    }

    /** The target row of a version's row and its decoded start and end (null while open). */
    static Object[] targetRow(Object[] row, Object start, Object end) {
        Object[] out = Arrays.copyOf(row, row.length + 2);
        out[row.length] = start;
        out[row.length + 1] = end;
        return out;
    }

    @Override
    public String toString() {
        return "["
                + Arrays.toString(start)
                + ","
                + (end == null ? "-" : Arrays.toString(end))
                + ") "
                + Arrays.deepToString(row);
    }
}
