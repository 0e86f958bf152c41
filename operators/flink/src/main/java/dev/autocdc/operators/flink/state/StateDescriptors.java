package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.BitemporalSnapshot;
import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.TimelineEntry;
import java.util.List;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * The descriptor of every state the engine's operators keep, one factory per state of {@link
 * StateNames}: its name, and the serializers (or type information) of its keys and values. A
 * savepoint's state is found by the name and checked against the serializers, so a factory's result
 * never changes but through a serializer's version (docs/state.md). No state has a TTL or another
 * setting. A factory takes what its serializer is built from (the flow's column types, or a row
 * type the caller derives from its flow) and builds a new descriptor at each call.
 */
public final class StateDescriptors {
    private StateDescriptors() {}

    /** {@link StateNames#SCD1_EVENTS}: a {@link DecisiveEventsSerializer} value. */
    public static ValueStateDescriptor<List<ChangeEvent>> scd1Events(List<ColumnType> types) {
        return new ValueStateDescriptor<>(
                StateNames.SCD1_EVENTS, new DecisiveEventsSerializer(types));
    }

    /**
     * {@link StateNames#SCD2_RECENT}: a {@link RecentEntriesSerializer} value.
     *
     * @param previousLayout whether it writes the layout before {@link
     *     RecentEntriesSerializer#VERSION} (tests of the migration)
     */
    public static ValueStateDescriptor<TimelineBlock> scd2Recent(
            List<ColumnType> types, boolean previousLayout) {
        return new ValueStateDescriptor<>(
                StateNames.SCD2_RECENT,
                new RecentEntriesSerializer(
                        types, RecentEntriesSerializer.VERSION - (previousLayout ? 1 : 0)));
    }

    /** {@link StateNames#SCD2_BLOCKS}: a map of {@link TimelineBlockSerializer} blocks. */
    public static MapStateDescriptor<SequenceKey, TimelineBlock> scd2Blocks(
            List<ColumnType> types) {
        return blocks(StateNames.SCD2_BLOCKS, types);
    }

    /** {@link StateNames#LEGACY_SCD2_HEAD}: a {@link TimelineEntrySerializer} value. */
    public static ValueStateDescriptor<TimelineEntry> legacyScd2Head(List<ColumnType> types) {
        return new ValueStateDescriptor<>(
                StateNames.LEGACY_SCD2_HEAD, new TimelineEntrySerializer(types));
    }

    /**
     * {@link StateNames#LEGACY_SCD2_TIMELINE}: a map of {@link TimelineEntrySerializer} entries.
     */
    public static MapStateDescriptor<SequenceKey, TimelineEntry> legacyScd2Timeline(
            List<ColumnType> types) {
        return new MapStateDescriptor<>(
                StateNames.LEGACY_SCD2_TIMELINE,
                DescendingSequenceKeySerializer.INSTANCE,
                new TimelineEntrySerializer(types));
    }

    /** {@link StateNames#HISTORY_FLOOR}: a sequence, as bytes. */
    public static ValueStateDescriptor<byte[]> historyFloor() {
        return new ValueStateDescriptor<>(
                StateNames.HISTORY_FLOOR, BytePrimitiveArraySerializer.INSTANCE);
    }

    /**
     * {@link StateNames#BITEMPORAL_RECENT}: a {@link BitemporalRecentSerializer} value.
     *
     * @param previousLayout whether it writes the layout before {@link
     *     BitemporalRecentSerializer#VERSION} (tests of the migration)
     */
    public static ValueStateDescriptor<TimelineBlock> bitemporalRecent(
            List<ColumnType> types, boolean previousLayout) {
        return new ValueStateDescriptor<>(
                StateNames.BITEMPORAL_RECENT,
                new BitemporalRecentSerializer(
                        types, BitemporalRecentSerializer.VERSION - (previousLayout ? 1 : 0)));
    }

    /** {@link StateNames#BITEMPORAL_BLOCKS}: a map of {@link TimelineBlockSerializer} blocks. */
    public static MapStateDescriptor<SequenceKey, TimelineBlock> bitemporalBlocks(
            List<ColumnType> types) {
        return blocks(StateNames.BITEMPORAL_BLOCKS, types);
    }

    /** {@link StateNames#BITEMPORAL_HEAD}: a {@link BitemporalHeadSerializer} value. */
    public static ValueStateDescriptor<BitemporalHead> bitemporalHead(List<ColumnType> types) {
        return new ValueStateDescriptor<>(
                StateNames.BITEMPORAL_HEAD, new BitemporalHeadSerializer(types));
    }

    /** {@link StateNames#BITEMPORAL_SNAPSHOT}: a {@link BitemporalSnapshotSerializer} value. */
    public static ValueStateDescriptor<BitemporalSnapshot> bitemporalSnapshot(
            List<ColumnType> types) {
        return new ValueStateDescriptor<>(
                StateNames.BITEMPORAL_SNAPSHOT, new BitemporalSnapshotSerializer(types));
    }

    /**
     * {@link StateNames#LEGACY_BITEMPORAL_EVENTS}: a map of {@link TimelineBlockSerializer} blocks,
     * which the pre-release layout's values are not.
     */
    public static MapStateDescriptor<SequenceKey, TimelineBlock> legacyBitemporalEvents(
            List<ColumnType> types) {
        return blocks(StateNames.LEGACY_BITEMPORAL_EVENTS, types);
    }

    /** {@link StateNames#TOMBSTONE_EXPIRY}: a processing time ({@code Types.LONG}). */
    public static ValueStateDescriptor<Long> tombstoneExpiry() {
        return new ValueStateDescriptor<>(StateNames.TOMBSTONE_EXPIRY, Types.LONG);
    }

    /** {@link StateNames#HISTORY_PRUNE_AT}: a processing time ({@code Types.LONG}). */
    public static ValueStateDescriptor<Long> historyPruneAt() {
        return new ValueStateDescriptor<>(StateNames.HISTORY_PRUNE_AT, Types.LONG);
    }

    /** {@link StateNames#FLOW_SHAPE} (operator state): the shape's text. */
    public static ListStateDescriptor<String> flowShape() {
        return new ListStateDescriptor<>(StateNames.FLOW_SHAPE, StringSerializer.INSTANCE);
    }

    /**
     * {@link StateNames#TRUNCATE_FLOOR} (broadcast state): {@link DecisiveEventsSerializer} lists
     * by string.
     */
    public static MapStateDescriptor<String, List<ChangeEvent>> truncateFloor(
            List<ColumnType> types) {
        return new MapStateDescriptor<>(
                StateNames.TRUNCATE_FLOOR,
                StringSerializer.INSTANCE,
                new DecisiveEventsSerializer(types));
    }

    /**
     * {@link StateNames#TRUNCATE_FLOOR_ARRIVAL} (broadcast state): processing times by string
     * ({@code Types.STRING}, {@code Types.LONG}).
     */
    public static MapStateDescriptor<String, Long> truncateFloorArrival() {
        return new MapStateDescriptor<>(
                StateNames.TRUNCATE_FLOOR_ARRIVAL, Types.STRING, Types.LONG);
    }

    /**
     * {@link StateNames#SNAPSHOT_PENDING}: lists of input rows by snapshot id (as a string),
     * restorable after the input gained nullable columns at its end ({@link
     * WideningRowSerializer}).
     *
     * @param inputType the flow's input row
     */
    public static MapStateDescriptor<String, List<RowData>> snapshotPending(RowType inputType) {
        return new MapStateDescriptor<>(
                StateNames.SNAPSHOT_PENDING,
                StringSerializer.INSTANCE,
                new ListSerializer<>(new WideningRowSerializer(inputType)));
    }

    /**
     * {@link StateNames#SNAPSHOTS_COMPLETE} (broadcast state): marks by snapshot id (as a string).
     *
     * @param markType the row of a snapshot's mark
     */
    public static MapStateDescriptor<String, RowData> snapshotsComplete(RowType markType) {
        return new MapStateDescriptor<>(
                StateNames.SNAPSHOTS_COMPLETE,
                StringSerializer.INSTANCE,
                new RowDataSerializer(markType));
    }

    /**
     * {@link StateNames#SNAPSHOT_APPLIED}: a row.
     *
     * @param progressType the row of a key's progress through the snapshots
     */
    public static ValueStateDescriptor<RowData> snapshotApplied(RowType progressType) {
        return new ValueStateDescriptor<>(
                StateNames.SNAPSHOT_APPLIED, new RowDataSerializer(progressType));
    }

    /**
     * {@link StateNames#SNAPSHOTS_COUNTING} (operator state): marks ({@code InternalTypeInfo}).
     *
     * @param markType the row of a snapshot's mark
     */
    public static ListStateDescriptor<RowData> snapshotsCounting(RowType markType) {
        return new ListStateDescriptor<>(
                StateNames.SNAPSHOTS_COUNTING, InternalTypeInfo.of(markType));
    }

    /**
     * {@link StateNames#SNAPSHOTS_WAITING} (operator state): marks ({@code InternalTypeInfo}).
     *
     * @param markType the row of a snapshot's mark
     */
    public static ListStateDescriptor<RowData> snapshotsWaiting(RowType markType) {
        return new ListStateDescriptor<>(
                StateNames.SNAPSHOTS_WAITING, InternalTypeInfo.of(markType));
    }

    /** {@link StateNames#SNAPSHOTS_LAST_ROWS} (operator state): a count ({@code Types.LONG}). */
    public static ListStateDescriptor<Long> snapshotsLastRows() {
        return new ListStateDescriptor<>(StateNames.SNAPSHOTS_LAST_ROWS, Types.LONG);
    }

    /** {@link StateNames#SNAPSHOTS_SCANNED} (union operator state): a watermark. */
    public static ListStateDescriptor<Long> snapshotsScanned() {
        return new ListStateDescriptor<>(StateNames.SNAPSHOTS_SCANNED, LongSerializer.INSTANCE);
    }

    private static MapStateDescriptor<SequenceKey, TimelineBlock> blocks(
            String name, List<ColumnType> types) {
        return new MapStateDescriptor<>(
                name, DescendingSequenceKeySerializer.INSTANCE, new TimelineBlockSerializer(types));
    }
}
