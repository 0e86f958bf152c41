package dev.autocdc.operators.core;

import java.util.Arrays;

/**
 * The identity of one snapshot of a flow from snapshots (semantics §10) as bytes that sort in the
 * order snapshots are applied: by version; bitemporal, by system sequence, then version.
 *
 * <p>Layout: SCD type 1 and 2, the version's {@link SequenceCodec} encoding; bitemporal, the system
 * sequence's encoding followed by the version's. Both encodings are prefix-free, so the
 * concatenation compares with {@link SequenceCodec#compare} field by field, and two snapshots are
 * the same exactly when their ids are equal.
 */
public final class SnapshotId {
    private SnapshotId() {}

    /**
     * @param sequence the encoded SEQUENCE BY (the snapshot's version), never null
     * @param systemSequence the encoded SYSTEM SEQUENCE BY; null unless bitemporal
     */
    public static byte[] of(byte[] sequence, byte[] systemSequence) {
        if (systemSequence == null) {
            return sequence;
        }
        byte[] id = Arrays.copyOf(systemSequence, systemSequence.length + sequence.length);
        System.arraycopy(sequence, 0, id, systemSequence.length, sequence.length);
        return id;
    }

    /** The id of the snapshot an event's sequences place it in. */
    public static byte[] of(ChangeEvent event) {
        return of(event.sequence(), event.systemSequence());
    }

    /** Negative, zero or positive as snapshot a is applied before, with, or after b. */
    public static int compare(byte[] a, byte[] b) {
        return SequenceCodec.compare(a, b);
    }
}
