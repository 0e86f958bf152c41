package dev.autocdc.operators.flink;

import dev.autocdc.operators.flink.state.SingleSerializerSnapshot;

/**
 * The name under which savepoints of the builds that had one serializer class for every stored type
 * keep its snapshot; Flink finds a snapshot's class by that name, so it stays (see docs/state.md).
 */
public final class StateSerializer {
    private StateSerializer() {}

    /** Read as {@link SingleSerializerSnapshot}. */
    public static final class Snapshot<T> extends SingleSerializerSnapshot<T> {}
}
