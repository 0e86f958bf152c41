package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.BitemporalSnapshotKey;
import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.runtime.FlowStateCache;
import dev.autocdc.operators.flink.runtime.SequenceClock;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.CachingStateAccess;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.WideningRowSerializer;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.streaming.api.operators.KeyContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/**
 * AUTO CDC from snapshots (semantics §10) as a keyed Flink function: holds each key's rows until
 * their snapshot is complete, then applies the snapshot to the key as the changes it stands for,
 * through the same {@link FlowRuntime} as change flows (targets, state layout and changelog are
 * theirs). Keyed input: the rows ({@link SnapshotMarks} has taken the end rows out); broadcast
 * input: the complete snapshots ({@link SnapshotCompletion}). It runs in a {@link
 * SnapshotApplyOperator}.
 *
 * <p>Per key, when the watermark reaches a snapshot the key waits for (an event-time timer), every
 * complete snapshot after the last one the key applied is applied in order: the key's row is an
 * upsert at the snapshot's sequences ({@link SnapshotRowsOfKey}: duplicates, and rows refused on
 * arrival, hold the key as it was); a key without a row is deleted at them where it is present.
 * Bitemporal keys write the deletes that matter only later, when a snapshot restates an older
 * version, as {@link BitemporalSnapshotKey} decides. A row of a snapshot at or below one already
 * complete goes to the late events ({@value DeadLetter#SNAPSHOT_OUT_OF_ORDER}).
 *
 * <p>Which keys run. A key present at the newest version re-arms its timer just after the
 * watermark, so that it runs when the watermark next passes a complete snapshot (the timers advance
 * only to those, {@link SnapshotApplyOperator}) and finds out it vanished without a scan; an absent
 * key has no timer until a row of it arrives. That is every key that can change at a snapshot of a
 * version newer than every applied one. A bitemporal snapshot that restates an older version can
 * also delete keys present at that version and absent at the newest: before the watermark passes
 * one, {@link SnapshotApplyOperator} offers every key with progress to {@link #scanKey} (a scan,
 * counted), and only those present at a restated version catch up.
 *
 * <p>State (besides the target's, {@link StateNames}):
 *
 * <ul>
 *   <li>{@value StateNames#SNAPSHOT_PENDING} (keyed map): the key's rows of snapshots it has not
 *       applied ({@link SnapshotPendingRows});
 *   <li>{@value StateNames#SNAPSHOT_APPLIED} (keyed value): the key's {@link SnapshotProgress}
 *       ({@link SnapshotCatchUp});
 *   <li>{@value StateNames#SNAPSHOTS_COMPLETE} (broadcast map): every complete snapshot's mark
 *       ({@link SnapshotMarks}), by its id; SCD flows forget those the watermark has passed. A
 *       snapshot the safety valve holds has its mark here with the held flag set, until its
 *       complete mark replaces it: a restore that holds it again copies nothing twice.
 * </ul>
 */
public class AutoCdcSnapshotFunction
        extends KeyedBroadcastProcessFunction<Object, RowData, RowData, RowData>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    private final FlowRuntime runtime;
    private final EngineSpec spec;

    private transient SnapshotPendingRows pending;
    private transient WaitingRowsState waitingRows;
    private transient SnapshotCatchUp catchUp;
    private transient SequenceClock clock;
    private transient SnapshotKeyRows keyRows;
    private transient SnapshotIntake intake;
    private transient SnapshotRowsOfKey rowsOfKey;
    private transient boolean bitemporal;

    /** The write-back cache its operator set up; null: none. */
    private transient FlowStateCache cache;

    /** The complete snapshots (a copy of the broadcast state); null until read. */
    private transient CompleteSnapshots complete;

    /** The complete snapshots' descriptor, built once: a timer of every key asks for it. */
    private transient MapStateDescriptor<String, RowData> completeState;

    /** Coverage, for tests: keys a scan caught up. */
    private transient long scanCatchUps;

    /** Coverage, for tests: the event-time timers that ran a key. */
    private transient long timerRuns;

    /**
     * The input's watermark, as {@link SnapshotApplyOperator} gives it: the timer service's lags it
     * (its timers advance to complete snapshots only).
     */
    private transient long watermark = Long.MIN_VALUE;

    /**
     * The time of the event-time timer that fires now, as {@link SnapshotApplyOperator} gives it
     * (it stamps the timer's run with another time).
     */
    private transient long firing;

    public AutoCdcSnapshotFunction(EngineSpec spec) {
        this.spec = spec;
        this.runtime = new FlowRuntime(spec);
    }

    /**
     * State accesses so far, this function's (pending rows, progress) and the target's (for tests
     * and benchmarks).
     */
    public StateAccessCounter stateAccesses() {
        return runtime.stateAccesses();
    }

    /** Coverage, for tests: deletes written late because a restatement made them matter. */
    public long restatedDeletes() {
        return catchUp.restatedDeletes();
    }

    public long scanCatchUps() {
        return scanCatchUps;
    }

    public long timerRuns() {
        return timerRuns;
    }

    /** The input's watermark has reached {@code watermark}, before the timers it lets fire. */
    void watermark(long watermark) {
        this.watermark = watermark;
    }

    /** The event-time timer that runs next is at {@code time}. */
    void firing(long time) {
        this.firing = time;
    }

    /** The flow's metrics (for tests). */
    public EngineMetrics metrics() {
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

    /**
     * Lets the function keep a write-back cache of its keys' state under {@code operator}'s keys
     * ({@link FlowStateCache}); call before {@link #open}. The operator then calls {@link
     * #flushCache()} before each snapshot of keyed state and before it visits every key.
     */
    void cacheUnder(KeyContext operator, Configuration taskManager) {
        this.cache = new FlowStateCache(operator, taskManager);
    }

    /** Writes the write-back cache's changes to keyed state (nothing without a cache). */
    void flushCache() throws IOException {
        if (cache != null) {
            cache.flush();
        }
    }

    /** The write-back cache; null when none (for tests). */
    public CachingStateAccess stateCache() {
        return cache == null ? null : cache.cache();
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        KeyedStateAccess states = KeyedStateAccess.of(getRuntimeContext());
        if (cache != null) {
            states = cache.open(states, spec);
        }
        runtime.open(states);
        completeState = SnapshotMarks.completeDescriptor(spec);
        rowsOfKey = new SnapshotRowsOfKey(runtime);
        bitemporal = spec.flow().targetType() == TargetType.BITEMPORAL;
        clock = SnapshotMarks.clock(spec);
        keyRows = new SnapshotKeyRows(spec);
        intake = new SnapshotIntake(runtime, spec, keyRows);
        WideningRowSerializer inputRows = new WideningRowSerializer(spec.inputType());
        waitingRows =
                new WaitingRowsState(
                        states.getMapState(StateDescriptors.snapshotPending(spec.inputType())),
                        inputRows);
        CachingStateAccess cached = stateCache();
        pending =
                new SnapshotPendingRows(
                        waitingRows,
                        cached == null ? null : cached.cache(waitingRows, waitingRows.sizer()),
                        runtime,
                        inputRows,
                        clock);
        catchUp =
                new SnapshotCatchUp(
                        runtime,
                        spec,
                        states.getState(SnapshotProgress.descriptor(spec)),
                        pending,
                        keyRows,
                        rowsOfKey);
    }

    @Override
    public void processElement(RowData row, ReadOnlyContext ctx, Collector<RowData> out)
            throws Exception {
        FlowRuntime.Effects fx = FlowRuntime.Effects.of(ctx.timerService(), ctx);
        SnapshotIntake.Kept kept = intake.read(row, fx);
        if (kept == null) {
            return;
        }
        byte[] id = kept.id();
        boolean refusedRow = kept.refused();
        // Late by this instance's input watermark alone: a snapshot's complete mark comes on
        // another channel and may overtake rows of it sent earlier, but never the watermark that
        // passes it.
        long time = SnapshotMarks.time(clock, row);
        if (time <= watermark) {
            if (!refusedRow) {
                pending.late(row, fx);
            }
            return;
        }
        pending.add(id, row, refusedRow, time, ctx.timerService());
        if (complete == null) { // read once per instance; not a broadcast-state lookup per row
            completeSnapshots(ctx.getBroadcastState(completeState));
        }
        RowData held = complete.held(id);
        if (held != null && !refusedRow) {
            // the held notice came first (it travels on the broadcast channel): the copy now
            rowsOfKey.heldCopies(
                    List.of(row),
                    held.getLong(SnapshotMarks.ROWS),
                    letter -> fx.output(SideOutputs.LATE_EVENTS, letter));
        }
    }

    @Override
    public void processBroadcastElement(RowData mark, Context ctx, Collector<RowData> out)
            throws Exception {
        BroadcastState<String, RowData> state = ctx.getBroadcastState(completeState);
        completeSnapshots(state);
        if (!bitemporal) {
            // every key with work at them ran at that watermark (a present key re-arms just after
            // each): no key needs them again, and a cursor need not be in the map
            complete.forgetPassed(ctx.currentWatermark(), id -> remove(state, id));
        }
        byte[] id = mark.getBinary(SnapshotMarks.ID);
        if (mark.getBoolean(SnapshotMarks.HELD)) {
            if (complete.held(id) == null) {
                holdSnapshot(mark, state, ctx);
            } // else a restore repeats the notice: the rows waiting were shown before it
            return;
        }
        state.put(CompleteSnapshots.key(id), mark);
        complete.add(mark);
    }

    /**
     * A snapshot the safety valve holds: its rows stay waiting (the watermark stays below it), and
     * copies of those that arrived show why; those that arrive later are copied as they come. The
     * hold is kept in the broadcast state until a complete mark replaces it.
     */
    private void holdSnapshot(RowData mark, BroadcastState<String, RowData> state, Context ctx)
            throws Exception {
        flushCache(); // the visit below reads keyed state as it is
        String key = CompleteSnapshots.key(mark.getBinary(SnapshotMarks.ID));
        state.put(key, mark);
        complete.add(mark);
        ctx.applyToKeyedState(
                StateDescriptors.snapshotPending(spec.inputType()),
                (Object k, MapState<String, List<RowData>> waiting) -> {
                    List<RowData> rows = waitingRows.widened(waiting.get(key));
                    if (rows != null) {
                        rowsOfKey.heldCopies(
                                rows,
                                mark.getLong(SnapshotMarks.ROWS),
                                letter -> ctx.output(SideOutputs.LATE_EVENTS, letter));
                    }
                });
    }

    private static void remove(BroadcastState<String, RowData> state, byte[] id) {
        try {
            state.remove(CompleteSnapshots.key(id));
        } catch (Exception e) {
            throw new IllegalStateException("cannot forget a complete snapshot", e);
        }
    }

    /** Reads the complete snapshots from the broadcast state, once per instance. */
    private void completeSnapshots(ReadOnlyBroadcastState<String, RowData> state) throws Exception {
        if (complete == null) {
            complete =
                    new CompleteSnapshots(
                            bitemporal
                                    ? mark -> runtime.decoder().sequence(keyRows.delete(null, mark))
                                    : null);
            for (Map.Entry<String, RowData> e : state.immutableEntries()) {
                complete.add(e.getValue());
            }
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out)
            throws Exception {
        FlowRuntime.Effects fx = FlowRuntime.Effects.of(ctx.timerService(), ctx);
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            runtime.onTimer(timestamp, ctx.getCurrentKey(), fx);
            return;
        }
        timerRuns++;
        completeSnapshots(ctx.getBroadcastState(completeState));
        catchUp.run(complete, catchUp.stored(), firing, watermark, fx, out);
    }

    /**
     * The time the keys' event-time timers may fire through at watermark {@code watermark}: the
     * newest complete snapshot's it has passed (the greatest watermark, the end of a bounded input,
     * itself); {@code Long.MIN_VALUE}: none. A key's timer has work only at such a snapshot: apply
     * it, and drop the rows of snapshots it leaves behind. A snapshot the watermark passes without
     * a complete mark has no rows waiting, since its mark comes before the watermark that passes it
     * and a held one keeps the watermark below it; rows of it that come later are late on arrival
     * ({@link SnapshotApplyOperator}).
     */
    long timersThrough(ReadOnlyBroadcastState<String, RowData> state, long watermark)
            throws Exception {
        if (watermark == Long.MAX_VALUE) {
            return watermark;
        }
        completeSnapshots(state);
        return complete.newestPassed(watermark);
    }

    /**
     * The snapshots that restate an older version and that the watermark passes when it moves from
     * {@code after} to {@code upTo}: if any, every key must be offered to {@link #scanKey} first
     * ({@link SnapshotApplyOperator}). None for SCD flows.
     */
    List<byte[]> restatingBetween(
            ReadOnlyBroadcastState<String, RowData> state, long after, long upTo) throws Exception {
        if (!bitemporal) {
            return List.of();
        }
        completeSnapshots(state);
        return complete.restatingBetween(after, upTo);
    }

    /**
     * One key of a scan, before the watermark {@code watermark} passes the {@code restating}
     * snapshots: catches the key up if it is present at the version of one of them after its last
     * applied snapshot; else leaves it, since only such a key can change there without a row (a key
     * with rows has a timer at or before them, one present at the newest version its re-armed one,
     * and a restating snapshot the watermark had passed before was scanned for then).
     */
    void scanKey(
            List<byte[]> restating, long watermark, FlowRuntime.Effects fx, Collector<RowData> out)
            throws Exception {
        SnapshotProgress progress = catchUp.stored();
        if (progress == null) {
            return;
        }
        for (byte[] id : restating) {
            if ((progress.cursor == null || SnapshotId.compare(id, progress.cursor) > 0)
                    && progress.bitemporal.presentAt(complete.index().version(id))) {
                scanCatchUps++;
                catchUp.run(complete, progress, Long.MIN_VALUE, watermark, fx, out);
                return;
            }
        }
    }
}
