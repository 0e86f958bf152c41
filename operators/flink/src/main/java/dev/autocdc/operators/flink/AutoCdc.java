package dev.autocdc.operators.flink;

import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.snapshot.AutoCdcSnapshotFunction;
import dev.autocdc.operators.flink.snapshot.SnapshotApplyOperator;
import dev.autocdc.operators.flink.snapshot.SnapshotCompletion;
import dev.autocdc.operators.flink.snapshot.SnapshotMarks;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.StateDescriptors;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * Wires a flow into a DataStream job: keyBy the flow's keys, then the AUTO CDC function; for an SCD
 * type 1 flow with APPLY AS TRUNCATE WHEN, truncates are split off and broadcast to every instance.
 * The result is the target's changelog; dead letters are its side output {@link
 * SideOutputs#DEAD_LETTERS} (and {@link SideOutputs#LATE_EVENTS}).
 */
public final class AutoCdc {

    private AutoCdc() {}

    /**
     * @param events rows laid out as {@link EngineSpec#inputType()}
     * @param outputType {@code InternalTypeInfo.of(spec.targetType())}: the engine emits binary
     *     rows, which only Flink's row serializer copies
     * @param uid the operator's stable uid (part of the savepoint contract)
     * @throws IllegalArgumentException when {@code outputType} is another type information
     */
    public static SingleOutputStreamOperator<RowData> apply(
            DataStream<RowData> events,
            EngineSpec spec,
            TypeInformation<RowData> outputType,
            String uid) {
        if (!(outputType instanceof InternalTypeInfo)
                || !outputType.equals(InternalTypeInfo.of(spec.targetType()))) {
            throw new IllegalArgumentException(
                    "AUTO CDC flow "
                            + spec.flow().name()
                            + ": the output type must be InternalTypeInfo.of(spec.targetType()), "
                            + spec.targetType()
                            + ", not "
                            + outputType);
        }
        FlowKeySelector keys = new FlowKeySelector(spec);
        if (spec.snapshot()) {
            return fromSnapshots(events, spec, outputType, uid, keys);
        }
        if (spec.field(ControlColumn.TRUNCATE) < 0) {
            return events.keyBy(keys)
                    .transform(
                            "AUTO CDC " + spec.flow().name(),
                            outputType,
                            new AutoCdcOperator(new AutoCdcFunction(spec)))
                    .uid(uid)
                    .name("AUTO CDC " + spec.flow().name());
        }
        int truncateField = spec.field(ControlColumn.TRUNCATE);
        DataStream<RowData> truncates =
                events.filter(r -> isTruncate(r, truncateField))
                        .returns(events.getType())
                        .uid(uid + "-truncates")
                        .name("truncates of " + spec.flow().name());
        DataStream<RowData> others =
                events.filter(r -> !isTruncate(r, truncateField))
                        .returns(events.getType())
                        .uid(uid + "-events")
                        .name("events of " + spec.flow().name());
        MapStateDescriptor<?, ?>[] states = {
            StateDescriptors.truncateFloor(spec.flow().columnTypes()),
            StateDescriptors.truncateFloorArrival()
        };
        BroadcastStream<RowData> broadcast = truncates.broadcast(states);
        return others.keyBy(keys)
                .connect(broadcast)
                .process(new AutoCdcTruncateFunction(spec))
                .returns(outputType)
                .uid(uid)
                .name("AUTO CDC " + spec.flow().name());
    }

    /**
     * A flow from snapshots (semantics §10): each source subtask announces the snapshots it sees
     * ({@link SnapshotMarks}), one instance decides when each is complete ({@link
     * SnapshotCompletion}), and the keyed {@link AutoCdcSnapshotFunction} applies complete
     * snapshots key by key.
     */
    private static SingleOutputStreamOperator<RowData> fromSnapshots(
            DataStream<RowData> events,
            EngineSpec spec,
            TypeInformation<RowData> outputType,
            String uid,
            FlowKeySelector keys) {
        String name = spec.flow().name();
        SingleOutputStreamOperator<RowData> rows =
                events.transform("snapshots of " + name, events.getType(), new SnapshotMarks(spec))
                        .uid(uid + "-snapshot-marks")
                        .name("snapshots of " + name);
        DataStream<RowData> complete =
                rows.getSideOutput(SnapshotMarks.marks(spec))
                        .transform(
                                "complete snapshots of " + name,
                                InternalTypeInfo.of(SnapshotMarks.markType(spec)),
                                new SnapshotCompletion(
                                        SnapshotMarks.markType(spec),
                                        name,
                                        spec.snapshotHoldThreshold()))
                        .setParallelism(1)
                        .setMaxParallelism(1)
                        .uid(uid + "-snapshot-completion");
        // a keyed stream connected to a broadcast one, as Flink's keyed broadcast state pattern
        // does, run by an operator that can also visit every key (SnapshotApplyOperator)
        return rows.keyBy(keys)
                .connect(complete.broadcast())
                .transform(
                        "AUTO CDC " + name,
                        outputType,
                        new SnapshotApplyOperator(new AutoCdcSnapshotFunction(spec), spec))
                .uid(uid)
                .name("AUTO CDC " + name);
    }

    private static boolean isTruncate(RowData row, int field) {
        return !row.isNullAt(field) && row.getBoolean(field);
    }
}
