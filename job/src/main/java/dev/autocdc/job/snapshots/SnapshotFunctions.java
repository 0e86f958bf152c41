package dev.autocdc.job.snapshots;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

/**
 * Snapshots from a {@link SnapshotFunction}, as a table a flow {@code FROM SNAPSHOT} reads: the
 * function's rows with their version, then their time ({@value #TIME}), from a {@link
 * PolledSnapshotSource}.
 *
 * <pre>{@code
 * SnapshotFunctions.register(env, tEnv, "user_exports",
 *     DataTypes.ROW(DataTypes.FIELD("userId", DataTypes.INT()), DataTypes.FIELD("city", DataTypes.STRING())),
 *     "exportDay", DataTypes.DATE(), exports::nextAfter, Duration.ofMinutes(1));
 * new FlowPlanner(tEnv).plan(AutoCdcFlow.fromSnapshot("users_history", "user_exports")
 *     .keys("userId").sequenceBy("exportDay").storedAsScdType(2).build(),
 *     new FlowScript.TargetTable("users_history", null, null, 0));
 * }</pre>
 */
public final class SnapshotFunctions {
    /**
     * The view's last column: each row's time (its version's), on which the source's watermark is
     * declared (underscores appended when a column has the name). A flow from snapshots leaves it
     * out of the target, as it leaves the version.
     */
    public static final String TIME = "__snapshot_time";

    private SnapshotFunctions() {}

    /**
     * Registers {@code name} as a temporary view of the snapshots {@code function} returns.
     *
     * @param env the environment {@code tEnv} was made from
     * @param rows the rows' type, a ROW of the table's columns without the version
     * @param versionColumn the version's column, appended to the rows' (the flow's SEQUENCE BY)
     * @param versionType INT, BIGINT, DATE, TIMESTAMP(3) or TIMESTAMP_LTZ(3), as the function's
     *     version class is Integer, Long, LocalDate, LocalDateTime or Instant
     * @param interval how often the function is asked when it had nothing new
     */
    public static <V extends Serializable> void register(
            StreamExecutionEnvironment env,
            StreamTableEnvironment tEnv,
            String name,
            DataType rows,
            String versionColumn,
            DataType versionType,
            SnapshotFunction<V> function,
            Duration interval) {
        List<DataTypes.Field> fields = new ArrayList<>(DataType.getFields(rows));
        fields.add(
                DataTypes.FIELD(versionColumn, versionType.bridgedTo(versionClass(versionType))));
        DataType all = DataTypes.ROW(fields.toArray(new DataTypes.Field[0])).notNull();
        List<String> columns = DataType.getFieldNames(rows);
        PolledSnapshotSource<Row> source =
                new PolledSnapshotSource<>(new FunctionReader<>(function, columns), interval);
        // the rows' time, and the source's watermark on it, which completes each snapshot
        String time = TIME;
        while (columns.contains(time) || time.equals(versionColumn)) {
            time += "_";
        }
        tEnv.createTemporaryView(
                name,
                tEnv.fromDataStream(
                        source.stream(env, "snapshots of " + name, ExternalTypeInfo.of(all)),
                        Schema.newBuilder()
                                .columnByMetadata(time, DataTypes.TIMESTAMP_LTZ(3), "rowtime")
                                .watermark(time, "SOURCE_WATERMARK()")
                                .build()));
    }

    /** The Java class of a version of this type; refused for a type without a time. */
    private static Class<?> versionClass(DataType versionType) {
        return switch (versionType.getLogicalType().getTypeRoot()) {
            case INTEGER -> Integer.class;
            case BIGINT -> Long.class;
            case DATE -> LocalDate.class;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> LocalDateTime.class;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> Instant.class;
            default ->
                    throw new IllegalArgumentException(
                            "the version of snapshots from a function must have a time, so that"
                                    + " each snapshot completes on a stream: INT, BIGINT, DATE or"
                                    + " TIMESTAMP, not "
                                    + versionType);
        };
    }

    /** A version's time in milliseconds, as the flow times it (a DATE at its midnight, UTC). */
    static long time(Object version) {
        if (version instanceof Number n) {
            return n.longValue();
        }
        if (version instanceof LocalDate d) {
            return d.toEpochDay() * 86_400_000L;
        }
        if (version instanceof LocalDateTime t) {
            return t.toInstant(ZoneOffset.UTC).toEpochMilli();
        }
        if (version instanceof Instant i) {
            return i.toEpochMilli();
        }
        throw new IllegalArgumentException(
                "a snapshot function returned a version of class "
                        + version.getClass().getName()
                        + "; it must be Integer, Long, LocalDate, LocalDateTime or Instant");
    }

    /** Asks the function, and appends the version to each of its rows. */
    private record FunctionReader<V extends Serializable>(
            SnapshotFunction<V> function, List<String> columns) implements SnapshotReader<Row> {
        @Override
        @SuppressWarnings("unchecked")
        public Emitted next(Serializable latest, Rows<Row> out) throws Exception {
            var next = function.next((V) latest);
            if (next.isEmpty()) {
                return null;
            }
            V version = next.get().version();
            long time = time(version); // before any row: a version without a time emits nothing
            if (latest != null && time <= time(latest)) {
                throw new IllegalStateException(
                        "the snapshot function returned version "
                                + version
                                + " after version "
                                + latest
                                + "; each snapshot it returns must be newer than the latest (return"
                                + " Optional.empty() when there is nothing new)");
            }
            for (Row r : next.get().rows()) {
                Row row = new Row(columns.size() + 1);
                boolean named = r.getFieldNames(false) != null;
                for (int i = 0; i < columns.size(); i++) {
                    row.setField(i, named ? r.getField(columns.get(i)) : r.getField(i));
                }
                row.setField(columns.size(), version);
                out.emit(row, time);
            }
            return new Emitted(version, time);
        }
    }
}
