package dev.autocdc.job.source;

import dev.autocdc.job.snapshots.JdbcSnapshotsFactory;
import dev.autocdc.job.snapshots.VersionTimes;
import dev.autocdc.operators.flink.spec.ControlColumn;
import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The watermark of an unbounded source of a flow from snapshots (semantics §10): per split (Kafka
 * partition, file), just below the version of the last row read, or at it after an end row, so that
 * once every split's watermark passes a snapshot, the snapshot is complete. The Kafka source keeps
 * watermarks per partition and forwards their least; the filesystem source has one per reading
 * subtask, so a watched directory is read by one subtask ({@link WatchedDirectory}). Neither
 * advances a split by an idle timeout unless {@code table.exec.source.idle-timeout} is set (it must
 * not be).
 *
 * <p>The decoding step reads the source as bytes; so the watermark is declared on the table that
 * reads them ({@link SourceDecoding}): each value column as a computed column of the bytes decoded
 * ({@link SnapshotRecordFunction}), a time column ({@link #timeColumn}, {@link
 * SnapshotTimeFunction} of the version, bitemporal of the system sequence), and the watermark on
 * it, which Flink evaluates inside the Kafka source, per partition, and after the filesystem
 * source's one reading subtask.
 *
 * @param column the source column that times snapshots: SEQUENCE BY, bitemporal SYSTEM SEQUENCE BY
 * @param endCondition APPLY AS SNAPSHOT END WHEN as Flink SQL over the source's columns (its CASTs
 *     made unable to fail), or null
 */
public record SnapshotWatermark(String column, String endCondition) {
    /**
     * The computed time column of the table read as bytes, under the decoding step's control prefix
     * ({@link #timeColumn}).
     */
    static final String TIME = "__snapshot_time";

    /** Whether snapshots of a version of this type can be timed, so complete on a stream. */
    public static boolean timed(LogicalType type) {
        return VersionTimes.timed(type);
    }

    /**
     * Whether a table with these options never ends: a filesystem table that watches its path
     * ({@code source.monitor-interval}), a Kafka table without a bounded mode, a {@code
     * jdbc-snapshots} table. A bounded input completes every snapshot at its end, in any row order,
     * and gets no watermark.
     */
    public static boolean unbounded(Map<String, String> options) {
        String connector = options.get("connector");
        if ("filesystem".equals(connector)) {
            return options.containsKey("source.monitor-interval");
        }
        if ("kafka".equals(connector)) {
            return options.getOrDefault("scan.bounded.mode", "unbounded").equals("unbounded");
        }
        return JdbcSnapshotsFactory.IDENTIFIER.equals(connector);
    }

    /**
     * The time column's name: {@value #TIME} under the control prefix, with underscores appended
     * until no column of the table ({@code taken}) has it, ignoring case.
     */
    static String timeColumn(String prefix, Collection<String> taken) {
        Set<String> lower = new HashSet<>();
        taken.forEach(c -> lower.add(c.toLowerCase(Locale.ROOT)));
        String name = ControlColumn.withPrefix(prefix, TIME);
        while (lower.contains(name.toLowerCase(Locale.ROOT))) {
            name += "_";
        }
        return name;
    }

    /**
     * The time column's expression over the column of the decoded record; never null (a record the
     * format cannot read gives the epoch, which moves no watermark): a null time fails the
     * filesystem source's watermark step.
     */
    String timeExpression() {
        return "COALESCE("
                + SnapshotTimeFunction.NAME
                + "("
                + quote(column)
                + "), TIMESTAMP '1970-01-01 00:00:00.000')";
    }

    /**
     * The watermark: just below the row's time, so that a later snapshot's row passes the previous
     * snapshot; at it for an end row, which passes its own snapshot.
     */
    String watermarkExpression(String timeColumn) {
        String below = quote(timeColumn) + " - INTERVAL '0.001' SECOND";
        if (endCondition == null) {
            return below;
        }
        return "CASE WHEN ("
                + endCondition
                + ") IS TRUE THEN "
                + quote(timeColumn)
                + " ELSE "
                + below
                + " END";
    }

    private static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }
}
