package dev.autocdc.operators.flink;

/**
 * The name under which savepoints written before the serializers moved to {@code
 * dev.autocdc.operators.flink.state} keep the snapshot of {@link
 * dev.autocdc.operators.flink.state.DescendingSequenceKeySerializer}; Flink finds a snapshot's
 * class by that name, so it stays (see docs/state.md).
 */
public final class DescendingSequenceKeySerializer {
    private DescendingSequenceKeySerializer() {}

    /** Restores as the current serializer's snapshot, which accepts it. */
    public static final class Snapshot
            extends dev.autocdc.operators.flink.state.DescendingSequenceKeySerializer.Snapshot {}
}
