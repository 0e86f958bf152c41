package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.SimpleTimerService;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.OutputTag;

/**
 * Runs {@link AutoCdcSnapshotFunction} as Flink's keyed broadcast operator does, and adds what a
 * function cannot do: visit every key at a watermark, and hold its timers back.
 *
 * <p>The visit. Before the watermark passes a bitemporal snapshot that restates an older version,
 * every key with progress is offered to the function ({@link AutoCdcSnapshotFunction#scanKey}). The
 * scan runs inside one watermark, so a checkpoint waits for it. A key absent at the newest version
 * has no timer, yet such a snapshot can delete it (semantics §10, "Cost"); the scan is that cost,
 * counted in {@value #SCANS} and {@value #SCANNED_KEYS}.
 *
 * <p>The timers. The event-time timers advance only to the newest complete snapshot the watermark
 * has passed ({@link AutoCdcSnapshotFunction#timersThrough}), and the watermark goes downstream as
 * it came. A key's timer has work only at such a snapshot (apply it, or drop rows that can never
 * apply), while a source's watermark also moves to just below a snapshot as its first rows come:
 * advanced there, the timer every present key re-arms would fire once more per snapshot and find
 * nothing to do. The function reads the input's watermark from here ({@link
 * AutoCdcSnapshotFunction#watermark(long)}), for late rows and to re-arm its keys, and a timer's
 * run is stamped with the time the timers fire through, above every watermark sent before it.
 *
 * <p>It also hosts the function's write-back cache ({@code FlowStateCache}): set up with the
 * operator's keys and the TaskManager's memory when it opens, flushed before every checkpoint
 * barrier (savepoints included), at the end of input and before a scan, which reads keyed state.
 *
 * <p>State: {@value StateNames#SNAPSHOTS_SCANNED} (union operator list state), the watermark
 * through which this instance has scanned, so that a restore does not scan again for snapshots
 * already scanned for. After a change of parallelism every instance takes the least of them: a key
 * scanned twice applies nothing the second time.
 */
public final class SnapshotApplyOperator
        extends CoBroadcastWithKeyedOperator<Object, RowData, RowData, RowData> {
    private static final long serialVersionUID = 1L;

    public static final String SCANS = "num_snapshot_scans";
    public static final String SCANNED_KEYS = "num_snapshot_scanned_keys";

    private final EngineSpec spec;

    private transient ListState<Long> scannedState;
    private transient long scannedThrough;

    /** The time the event-time timers fired through (see the class comment); not stored. */
    private transient long timersThrough = Long.MIN_VALUE;

    private transient TimerService timers;
    private transient TimestampedCollector<RowData> collector;
    private transient Counter scans;
    private transient Counter scannedKeys;

    /** The complete snapshots' descriptor, built once (every watermark reads the state). */
    private transient MapStateDescriptor<String, RowData> completeState;

    public SnapshotApplyOperator(AutoCdcSnapshotFunction function, EngineSpec spec) {
        super(function, List.of(SnapshotMarks.completeDescriptor(spec)));
        this.spec = spec;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        scannedState =
                context.getOperatorStateStore()
                        .getUnionListState(StateDescriptors.snapshotsScanned());
        Long least = null;
        for (Long w : scannedState.get()) {
            least = least == null ? w : Math.min(least, w);
        }
        scannedThrough = least == null ? Long.MIN_VALUE : least; // none: a new job
    }

    @Override
    public void open() throws Exception {
        // before the function opens its states
        function()
                .cacheUnder(
                        this,
                        getContainingTask()
                                .getEnvironment()
                                .getTaskManagerInfo()
                                .getConfiguration());
        super.open();
        timers =
                new SimpleTimerService(
                        getInternalTimerService(
                                "user-timers", VoidNamespaceSerializer.INSTANCE, this));
        collector = new TimestampedCollector<>(output);
        completeState = SnapshotMarks.completeDescriptor(spec);
        var metrics = getMetricGroup().addGroup("flow", spec.flow().name());
        scans = metrics.counter(SCANS);
        scannedKeys = metrics.counter(SCANNED_KEYS);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        function().flushCache();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void finish() throws Exception {
        function().flushCache();
        super.finish();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        scannedState.update(List.of(scannedThrough));
    }

    /** The scans so far (for tests). */
    public long scans() {
        return scans.getCount();
    }

    /** The keys the scans visited so far (for tests). */
    public long scannedKeys() {
        return scannedKeys.getCount();
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        long watermark = mark.getTimestamp();
        function().watermark(watermark);
        var marks = getOperatorStateBackend().getBroadcastState(completeState);
        if (watermark > scannedThrough) {
            List<byte[]> restating = function().restatingBetween(marks, scannedThrough, watermark);
            if (!restating.isEmpty()) {
                scan(restating, watermark);
            }
            scannedThrough = watermark;
        }
        long through = function().timersThrough(marks, watermark);
        if (through > timersThrough) {
            timersThrough = through;
            timeServiceManager.advanceWatermark(new Watermark(through));
        }
        output.emitWatermark(mark);
    }

    /**
     * Runs a key's event-time timer as Flink's operator does, but stamps what it emits with the
     * time the timers fire through, which is above every watermark sent downstream before (the
     * timer's own time may be below them: the timers lag the input's watermark).
     */
    @Override
    public void onEventTime(InternalTimer<Object, VoidNamespace> timer) throws Exception {
        function().firing(timer.getTimestamp());
        super.onEventTime(
                new TimerHeapInternalTimer<>(timersThrough, timer.getKey(), timer.getNamespace()));
    }

    private AutoCdcSnapshotFunction function() {
        return (AutoCdcSnapshotFunction) userFunction;
    }

    private void scan(List<byte[]> restating, long watermark) throws Exception {
        scans.inc();
        function().flushCache(); // the visit finds the keys in keyed state
        collector.setAbsoluteTimestamp(watermark);
        FlowRuntime.Effects fx =
                new FlowRuntime.Effects() {
                    @Override
                    public TimerService timerService() {
                        return timers;
                    }

                    @Override
                    public <X> void output(OutputTag<X> tag, X value) {
                        output.collect(tag, new StreamRecord<>(value, watermark));
                    }
                };
        getKeyedStateBackend()
                .applyToAllKeys(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        SnapshotProgress.descriptor(spec),
                        (key, state) -> {
                            scannedKeys.inc();
                            function().scanKey(restating, watermark, fx, collector);
                        });
    }
}
