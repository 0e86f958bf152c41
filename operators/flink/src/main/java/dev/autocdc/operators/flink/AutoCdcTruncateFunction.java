package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.EventOrder;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * SCD type 1 with APPLY AS TRUNCATE WHEN (semantics §1): a truncate is a delete at its sequence for
 * every key, present or first seen later, on every parallel instance. Keyed input: the flow's other
 * events; broadcast input: its truncates (see {@link AutoCdc#apply}, which splits the stream).
 *
 * <p>Every instance keeps the greatest truncate (the "floor", with the processing time it arrived)
 * in broadcast state, {@value StateNames#TRUNCATE_FLOOR}. When one arrives, it is applied to every
 * key the instance holds (rows deleted, unless an event after the truncate keeps them; keys left
 * with nothing but the truncate drop their state, since the floor is their tombstone). A key's
 * event first applies the floor. Because the result does not depend on arrival order, the two
 * inputs need no synchronisation. The floor stops applying after the tombstone retention, like any
 * tombstone (semantics §7).
 */
public class AutoCdcTruncateFunction
        extends KeyedBroadcastProcessFunction<Object, RowData, RowData, RowData>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    private static final String FLOOR_EVENTS = "events";
    private static final String FLOOR_ARRIVAL = "arrival";

    private final FlowRuntime runtime;

    /** The broadcast states' descriptors, built once in open (every element asks for them). */
    private transient MapStateDescriptor<String, List<ChangeEvent>> floorState;

    private transient MapStateDescriptor<String, Long> arrivalState;

    public AutoCdcTruncateFunction(EngineSpec spec) {
        this.runtime = new FlowRuntime(spec);
    }

    /** The flow's metrics (for tests). */
    EngineMetrics metrics() {
        return runtime.metrics();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        runtime.initializeShape(context);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        // the shape's operator state is written once, in initializeState
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        floorState = StateDescriptors.truncateFloor(runtime.spec().flow().columnTypes());
        arrivalState = StateDescriptors.truncateFloorArrival();
        runtime.open(KeyedStateAccess.of(getRuntimeContext()));
    }

    @Override
    public void processElement(RowData input, ReadOnlyContext ctx, Collector<RowData> out)
            throws Exception {
        ChangeEvent floor =
                activeFloor(
                        ctx.getBroadcastState(floorState),
                        ctx.getBroadcastState(arrivalState),
                        ctx.currentProcessingTime());
        runtime.process(input, FlowRuntime.Effects.of(ctx.timerService(), ctx), out, floor);
    }

    @Override
    public void processBroadcastElement(RowData input, Context ctx, Collector<RowData> out)
            throws Exception {
        ChangeEvent truncate =
                runtime.decodeTruncate(
                        input,
                        new FlowRuntime.Effects() {
                            @Override
                            public TimerService timerService() {
                                throw new UnsupportedOperationException(
                                        "no timers on the broadcast side");
                            }

                            @Override
                            public <X> void output(OutputTag<X> tag, X value) {
                                ctx.output(tag, value);
                            }
                        });
        if (truncate == null) {
            return; // dead-lettered
        }
        BroadcastState<String, List<ChangeEvent>> floors = ctx.getBroadcastState(floorState);
        BroadcastState<String, Long> arrivals = ctx.getBroadcastState(arrivalState);
        ChangeEvent current = activeFloor(floors, arrivals, ctx.currentProcessingTime());
        if (current != null
                && new EventOrder(runtime.spec().flow()).compare(truncate, current) <= 0) {
            return; // an older (or the same) truncate: the floor already covers it
        }
        floors.put(FLOOR_EVENTS, List.of(truncate));
        arrivals.put(FLOOR_ARRIVAL, ctx.currentProcessingTime());
        ChangeEvent floor = truncate;
        ctx.applyToKeyedState(
                StateDescriptors.scd1Events(runtime.spec().flow().columnTypes()),
                (Object key, ValueState<List<ChangeEvent>> state) ->
                        runtime.applyTruncate(key, state, floor, out));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out)
            throws Exception {
        runtime.onTimer(
                timestamp, ctx.getCurrentKey(), FlowRuntime.Effects.of(ctx.timerService(), ctx));
    }

    private ChangeEvent activeFloor(
            ReadOnlyBroadcastState<String, List<ChangeEvent>> floors,
            ReadOnlyBroadcastState<String, Long> arrivals,
            long now)
            throws Exception {
        List<ChangeEvent> floor =
                runtime.widened(floorState.getValueSerializer(), floors.get(FLOOR_EVENTS));
        if (floor == null || floor.isEmpty()) {
            return null;
        }
        Long arrival = arrivals.get(FLOOR_ARRIVAL);
        Duration retention = runtime.spec().tombstoneRetention();
        if (retention != null && arrival != null && now >= arrival + retention.toMillis()) {
            return null; // the truncate's tombstone expired
        }
        return floor.get(0);
    }
}
