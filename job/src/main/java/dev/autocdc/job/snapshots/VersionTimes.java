package dev.autocdc.job.snapshots;

import java.util.Set;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * The versions of a flow from snapshots that have a time (an integer as itself, a DATE at its
 * midnight, a TIMESTAMP to the millisecond), so that a snapshot can complete on a stream when a
 * watermark passes it (semantics §10); a version of another type completes only at the end of a
 * bounded input.
 */
public final class VersionTimes {
    private static final Set<LogicalTypeRoot> TIMED =
            Set.of(
                    LogicalTypeRoot.DATE,
                    LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE,
                    LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE,
                    LogicalTypeRoot.TINYINT,
                    LogicalTypeRoot.SMALLINT,
                    LogicalTypeRoot.INTEGER,
                    LogicalTypeRoot.BIGINT);

    private VersionTimes() {}

    /** Whether snapshots of a version of this type can be timed, so complete on a stream. */
    public static boolean timed(LogicalType type) {
        return TIMED.contains(type.getTypeRoot());
    }
}
