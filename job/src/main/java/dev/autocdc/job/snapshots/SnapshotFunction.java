package dev.autocdc.job.snapshots;

import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import org.apache.flink.types.Row;

/**
 * The next snapshot after the latest one, or none when there is nothing new: the function that the
 * seeds' {@code create_auto_cdc_from_snapshot_flow} may take as its source. A flow from snapshots
 * reads what it returns through {@link SnapshotFunctions#register}. It runs in the source's task,
 * once per interval (again at once after a snapshot, until it returns none), and must be
 * serializable.
 *
 * @param <V> the version's type: Integer, Long, LocalDate, LocalDateTime or Instant (a version must
 *     have a time, so that its snapshot can complete on a stream)
 */
@FunctionalInterface
public interface SnapshotFunction<V extends Serializable> extends Serializable {
    /** One snapshot: its rows (the table's columns, without the version) and its version. */
    record Next<V>(List<Row> rows, V version) {}

    /**
     * @param latest the version of the latest snapshot returned; null before the first (and after a
     *     restore, the latest one the restored checkpoint had)
     */
    Optional<Next<V>> next(V latest) throws Exception;
}
