package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TargetType;

/**
 * The layout of the engine's state, per target type, in one place: the versions its serializers
 * record in their snapshots (the job's savepoints), and the text the SQL functions put in the
 * fingerprint of every value they store (their state is bare bytes, which Flink cannot check). A
 * layout change bumps a serializer's version, and so the text: the SQL functions then refuse the
 * old state by its fingerprint.
 *
 * <ul>
 *   <li>SCD type 1: {@link DecisiveEventsSerializer};
 *   <li>SCD type 2: {@link RecentEntriesSerializer}, {@link TimelineBlockSerializer};
 *   <li>bitemporal: {@link BitemporalRecentSerializer}, {@link TimelineBlockSerializer}, {@link
 *       BitemporalHeadSerializer}, {@link BitemporalSnapshotSerializer};
 * </ul>
 *
 * all over the value format {@link StateCodec#FORMAT_VERSION}.
 */
public final class StateLayout {

    private StateLayout() {}

    /**
     * What a target type's stored bytes depend on besides the columns, as text: the value format
     * and the layout of the values every event reads and writes.
     */
    public static String describe(TargetType type) {
        String target;
        switch (type) {
            case SCD1:
                target = "SCD1" + changed("events", DecisiveEventsSerializer.VERSION, 1);
                break;
            case SCD2:
                target =
                        "SCD2 layout "
                                + RecentEntriesSerializer.VERSION
                                + changed("blocks", TimelineBlockSerializer.VERSION, 1);
                break;
            default:
                target =
                        "BITEMPORAL layout "
                                + BitemporalRecentSerializer.VERSION
                                + changed("blocks", TimelineBlockSerializer.VERSION, 1)
                                + changed("head", BitemporalHeadSerializer.VERSION, 2)
                                + changed("snapshot", BitemporalSnapshotSerializer.VERSION, 1);
        }
        return "state format " + StateCodec.FORMAT_VERSION + ", " + target;
    }

    /**
     * A serializer's version in the text once it moves from the one it had when this text was
     * defined, so that today's text (and the fingerprint of stored values) stays as it is.
     */
    private static String changed(String what, int version, int first) {
        return version == first ? "" : ", " + what + " layout " + version;
    }
}
