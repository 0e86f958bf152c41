package dev.autocdc.operators.flink.snapshot;

import dev.autocdc.operators.core.BitemporalSnapshotKey;
import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.runtime.EventDecoder;
import dev.autocdc.operators.flink.runtime.FlowRuntime;
import dev.autocdc.operators.flink.runtime.SequenceClock;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateAccessCounter;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;
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
 * watermark, so that it runs at every advance of the watermark and finds out it vanished without a
 * scan; an absent key has no timer until a row of it arrives. That is every key that can change at
 * a snapshot of a version newer than every applied one. A bitemporal snapshot that restates an
 * older version can also delete keys present at that version and absent at the newest: before the
 * watermark passes one, {@link SnapshotApplyOperator} offers every key with progress to {@link
 * #scanKey} (a scan, counted), and only those present at a restated version catch up.
 *
 * <p>State (besides the target's, {@link StateNames}):
 *
 * <ul>
 *   <li>{@value StateNames#SNAPSHOT_PENDING} (keyed map): snapshot id (as {@link
 *       CompleteSnapshots#key}) to the key's rows in it, as they arrived; a row that was
 *       dead-lettered when it arrived but whose key and sequences could be read is kept with row
 *       kind UPDATE_BEFORE, which no snapshot row has, and only holds the key's state at that
 *       snapshot;
 *   <li>{@value StateNames#SNAPSHOT_APPLIED} (keyed value): the key's {@link SnapshotProgress};
 *   <li>{@value StateNames#SNAPSHOTS_COMPLETE} (broadcast map): every complete snapshot's mark
 *       ({@link SnapshotMarks}), by its id; SCD flows forget those the watermark has passed.
 * </ul>
 */
public class AutoCdcSnapshotFunction
        extends KeyedBroadcastProcessFunction<Object, RowData, RowData, RowData>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    private final FlowRuntime runtime;
    private final EngineSpec spec;

    private transient MapState<String, List<RowData>> pending;
    private transient ValueState<RowData> applied;
    private transient RowDataSerializer rows;
    private transient SequenceClock clock;
    private transient SnapshotKeyRows keyRows;
    private transient SnapshotRowsOfKey rowsOfKey;
    private transient boolean bitemporal;

    /** The complete snapshots (a copy of the broadcast state); null until read. */
    private transient CompleteSnapshots complete;

    /** The complete snapshots' descriptor, built once: a timer of every key asks for it. */
    private transient MapStateDescriptor<String, RowData> completeState;

    /** Coverage, for tests: deletes written late because a restatement made them matter. */
    private transient long restatedDeletes;

    /** Coverage, for tests: keys a scan caught up. */
    private transient long scanCatchUps;

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

    public long restatedDeletes() {
        return restatedDeletes;
    }

    public long scanCatchUps() {
        return scanCatchUps;
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

    @Override
    public void open(OpenContext openContext) throws Exception {
        runtime.open(KeyedStateAccess.of(getRuntimeContext()));
        completeState = StateDescriptors.snapshotsComplete(SnapshotMarks.markType(spec));
        rows = new RowDataSerializer(spec.inputType());
        pending =
                getRuntimeContext().getMapState(StateDescriptors.snapshotPending(spec.inputType()));
        applied =
                getRuntimeContext()
                        .getState(StateDescriptors.snapshotApplied(SnapshotProgress.rowType(spec)));
        rowsOfKey = new SnapshotRowsOfKey(runtime);
        bitemporal = spec.flow().targetType() == TargetType.BITEMPORAL;
        clock = SnapshotMarks.clock(spec);
        keyRows = new SnapshotKeyRows(spec);
    }

    @Override
    public void processElement(RowData row, ReadOnlyContext ctx, Collector<RowData> out)
            throws Exception {
        FlowRuntime.Effects fx = FlowRuntime.Effects.of(ctx.timerService(), ctx);
        EngineMetrics metrics = runtime.metrics();
        metrics.input.inc(); // as it arrives: what it is applied as may be a derived delete too
        if (row.getRowKind() == RowKind.UPDATE_BEFORE) {
            metrics.skippedUpdateBefore.inc();
            return;
        }
        EventDecoder decoder = runtime.decoder();
        if (row.getRowKind() == RowKind.DELETE || SnapshotMarks.isEnd(spec, row)) {
            metrics.deadLettered.inc();
            fx.output(
                    SideOutputs.DEAD_LETTERS,
                    decoder.letterOf(
                            row,
                            DeadLetter.NOT_A_SNAPSHOT_ROW,
                            row.getRowKind() == RowKind.DELETE
                                    ? "a snapshot's rows are inserts; the source retracted a row"
                                    : "an end row whose sequences cannot be read"));
            return;
        }
        byte[] id;
        boolean held = false;
        DeadLetter refused = runtime.refusal(row);
        if (refused != null) {
            metrics.deadLettered.inc();
            fx.output(SideOutputs.DEAD_LETTERS, refused);
            id = keyRows.hasKey(row) ? decoder.snapshotId(row) : null;
            if (id == null) {
                return; // no key or no snapshot to hold
            }
            held = true;
        } else {
            ChangeEvent event = runtime.decode(row, fx);
            if (event == null) {
                return; // a value that does not convert: dead-lettered
            }
            id = SnapshotId.of(event);
        }
        // Late by this instance's watermark alone: a snapshot's complete mark comes on another
        // channel and may overtake rows of it sent earlier, but never the watermark that passes it.
        long time = SnapshotMarks.time(clock, row);
        if (time <= ctx.timerService().currentWatermark()) {
            if (!held) {
                late(row, fx);
            }
            return;
        }
        StateAccessCounter counter = runtime.stateAccesses();
        counter.valueReads++;
        List<RowData> waiting = pending.get(CompleteSnapshots.key(id));
        if (waiting == null) {
            waiting = new ArrayList<>(1);
            ctx.timerService().registerEventTimeTimer(time);
        }
        RowData copy = rows.copy(row);
        if (held) {
            copy.setRowKind(RowKind.UPDATE_BEFORE);
        }
        waiting.add(copy);
        counter.mapWrites++;
        pending.put(CompleteSnapshots.key(id), waiting);
    }

    private void late(RowData row, FlowRuntime.Effects fx) {
        runtime.metrics().droppedLate.inc();
        fx.output(
                SideOutputs.LATE_EVENTS,
                runtime.decoder()
                        .letterOf(
                                row,
                                DeadLetter.SNAPSHOT_OUT_OF_ORDER,
                                "the row's snapshot is at or below one already complete: its"
                                        + " split delivered it after a later snapshot's row or end"
                                        + " row; nothing else changes"));
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
            // the rows stay waiting (the watermark stays below the snapshot); copies show why
            String key = CompleteSnapshots.key(id);
            ctx.applyToKeyedState(
                    StateDescriptors.snapshotPending(spec.inputType()),
                    (Object k, MapState<String, List<RowData>> waiting) -> {
                        List<RowData> held = waiting.get(key);
                        if (held == null) {
                            return;
                        }
                        rowsOfKey.heldCopies(
                                held,
                                mark.getLong(SnapshotMarks.ROWS),
                                letter -> ctx.output(SideOutputs.LATE_EVENTS, letter));
                    });
            return;
        }
        state.put(CompleteSnapshots.key(id), mark);
        complete.add(mark);
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
        completeSnapshots(ctx.getBroadcastState(completeState));
        runtime.stateAccesses().valueReads++;
        RowData state = applied.value();
        catchUp(
                state == null ? null : SnapshotProgress.read(state, spec),
                timestamp,
                ctx.timerService().currentWatermark(),
                fx,
                out);
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
     * with rows has its own timer, one present at the newest version its re-armed one, and a
     * restating snapshot the watermark had passed before was scanned for then).
     */
    void scanKey(
            List<byte[]> restating, long watermark, FlowRuntime.Effects fx, Collector<RowData> out)
            throws Exception {
        runtime.stateAccesses().valueReads++;
        RowData state = applied.value();
        if (state == null) {
            return;
        }
        SnapshotProgress progress = SnapshotProgress.read(state, spec);
        for (byte[] id : restating) {
            if ((progress.cursor == null || SnapshotId.compare(id, progress.cursor) > 0)
                    && progress.bitemporal.presentAt(complete.index().version(id))) {
                scanCatchUps++;
                catchUp(progress, Long.MIN_VALUE, watermark, fx, out);
                return;
            }
        }
    }

    /**
     * Applies, in order, every snapshot after the key's last that is complete and that the
     * watermark has passed (a complete mark may arrive before the rows of its snapshot on another
     * channel, never after the watermark that passes it); then re-arms.
     *
     * <p>The timers of the snapshots it applies, set when their first rows came, would only find
     * nothing to do: they are deleted (each such visit would also iterate the key's waiting rows,
     * and on RocksDB an iteration over a key whose rows are gone steps over their tombstones and on
     * to the next key's rows, which at the end of a bounded input are all gone too).
     *
     * @param stored the key's progress as stored, read by the caller (null: none)
     * @param firing the time of the timer that runs it; MIN_VALUE in a scan
     */
    private void catchUp(
            SnapshotProgress stored,
            long firing,
            long watermark,
            FlowRuntime.Effects fx,
            Collector<RowData> out)
            throws Exception {
        StateAccessCounter counter = runtime.stateAccesses();
        TreeMap<byte[], List<RowData>> waiting = new TreeMap<>(SnapshotId::compare);
        counter.iteratorSteps++; // opening the iterator costs a seek
        for (Map.Entry<String, List<RowData>> e : pending.entries()) {
            counter.iteratorSteps++;
            waiting.put(CompleteSnapshots.id(e.getKey()), e.getValue());
        }
        SnapshotProgress progress;
        if (stored != null) {
            progress = stored;
        } else if (!waiting.isEmpty()) {
            progress =
                    SnapshotProgress.initial(
                            bitemporal, keyRows.keyOf(waiting.firstEntry().getValue().get(0)));
        } else {
            return; // nothing of this key is left
        }
        byte[] last = progress.cursor;
        byte[] next = complete.passed(complete.after(last), watermark);
        while (next != null) {
            if (!(bitemporal ? progress.bitemporal.everPresent() : progress.present())) {
                // a key never present (SCD: absent) changes only at its next row of a passed,
                // complete snapshot
                next = nextWithRows(waiting, last, watermark);
                if (next == null) {
                    break;
                }
            }
            List<RowData> rowsOfSnapshot = waiting.remove(next);
            if (rowsOfSnapshot != null) {
                counter.mapWrites++;
                pending.remove(CompleteSnapshots.key(next));
                long time = SnapshotMarks.time(clock, rowsOfSnapshot.get(0));
                if (time != firing) {
                    fx.timerService().deleteEventTimeTimer(time);
                }
            }
            apply(next, rowsOfSnapshot, progress, fx, out);
            last = next;
            next = complete.passed(complete.after(next), watermark);
        }
        Long earliest = null;
        for (Map.Entry<byte[], List<RowData>> e : waiting.entrySet()) {
            long time = SnapshotMarks.time(clock, e.getValue().get(0));
            boolean behind = last != null && SnapshotId.compare(e.getKey(), last) <= 0;
            if (behind || (time <= watermark && !complete.contains(e.getKey()))) {
                // its snapshot was applied before it came (a split broke the order, a replay
                // after a restore), or was never announced in time: it can never apply
                counter.mapWrites++;
                pending.remove(CompleteSnapshots.key(e.getKey()));
                for (RowData r : e.getValue()) {
                    if (r.getRowKind() != RowKind.UPDATE_BEFORE) {
                        late(r, fx);
                    }
                }
            } else if (time > watermark) {
                earliest = earliest == null ? time : Math.min(earliest, time);
            }
        }
        progress.cursor = last;
        boolean present = progress.present();
        if (last != null && (present || bitemporal || earliest != null)) {
            counter.valueWrites++;
            applied.update(progress.toRow());
        } else if (last != null && stored != null) {
            counter.valueWrites++;
            applied.clear(); // an absent key without rows: nothing to remember (SCD)
        }
        TimerService timers = fx.timerService();
        if (earliest != null) {
            timers.registerEventTimeTimer(earliest);
        }
        if (present && watermark < Long.MAX_VALUE) {
            timers.registerEventTimeTimer(watermark + 1); // to find out at once if it vanishes
        }
    }

    /** The key's next snapshot with rows after {@code last}, if complete and passed; else null. */
    private byte[] nextWithRows(
            TreeMap<byte[], List<RowData>> waiting, byte[] last, long watermark) {
        for (byte[] w : (last == null ? waiting : waiting.tailMap(last, false)).keySet()) {
            if (complete.contains(w)) {
                return complete.passed(w, watermark);
            }
        }
        return null;
    }

    /** Applies one complete snapshot to the key: its rows (null: none). */
    private void apply(
            byte[] id,
            List<RowData> rowsOfSnapshot,
            SnapshotProgress progress,
            FlowRuntime.Effects fx,
            Collector<RowData> out)
            throws Exception {
        RowData upsert = rowsOfSnapshot == null ? null : rowsOfKey.upsertOf(rowsOfSnapshot, fx);
        if (bitemporal) {
            BitemporalSnapshotKey.Rows rows =
                    rowsOfSnapshot == null
                            ? BitemporalSnapshotKey.Rows.NONE
                            : upsert == null
                                    ? BitemporalSnapshotKey.Rows.HELD
                                    : BitemporalSnapshotKey.Rows.UPSERT;
            progress.bitemporal.apply(
                    id,
                    rows,
                    complete.index(),
                    w -> {
                        if (!w.delete()) {
                            return runtime.apply(upsert, fx, out, null);
                        }
                        RowData delete = keyRows.delete(progress.key, complete.mark(w.at()));
                        if (SnapshotId.compare(w.at(), id) == 0) {
                            return runtime.apply(delete, fx, out, null);
                        }
                        restatedDeletes++;
                        if (runtime.applyDerived(delete, fx, out)) {
                            return true;
                        }
                        // the history the row would change left state: the row is late
                        runtime.lateBeforeRetainedHistory(upsert, fx);
                        return false;
                    });
        } else if (rowsOfSnapshot == null) {
            if (progress.present()) {
                runtime.apply(keyRows.delete(progress.key, complete.mark(id)), fx, out, null);
                progress.present(false);
            }
        } else if (upsert != null) {
            runtime.apply(upsert, fx, out, null);
            progress.present(true);
        }
    }
}
