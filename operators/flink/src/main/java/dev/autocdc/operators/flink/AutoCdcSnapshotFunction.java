package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.KeyPresence;
import dev.autocdc.operators.core.SnapshotId;
import dev.autocdc.operators.core.TargetType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * AUTO CDC from snapshots (SPEC §10) as a keyed Flink function: holds each key's rows until their
 * snapshot is complete, then applies the snapshot to the key as the changes it stands for, through
 * the same {@link FlowRuntime} as change flows (targets, state layout and changelog are theirs).
 * Keyed input: the rows ({@link SnapshotMarks} has taken the end rows out); broadcast input: the
 * complete snapshots ({@link SnapshotCompletion}). It runs in a {@link SnapshotApplyOperator}.
 *
 * <p>Per key, when the watermark reaches a snapshot the key waits for (an event-time timer), every
 * complete snapshot after the last one the key applied is applied in order: the key's row is an
 * upsert at the snapshot's sequences; a key without a row is deleted at them where that changes
 * something, that is where the key is present. Different rows of one key in one snapshot all go to
 * the dead letters ({@value DeadLetter#DUPLICATE_KEY_IN_SNAPSHOT}) and, like a row dead-lettered
 * when it arrived whose key and sequences could be read, leave the key as it was (the key is
 * <em>held</em> at that snapshot). A row of a snapshot at or below one already complete goes to the
 * late events ({@value DeadLetter#SNAPSHOT_OUT_OF_ORDER}).
 *
 * <p>Which keys run. A key present at the newest version re-arms its timer just after the
 * watermark, so that it is visited once per snapshot that completes and finds out it vanished
 * without a scan; an absent key has no timer until a row of it arrives. That is every key that can
 * change at a snapshot of a version newer than every applied one. A bitemporal snapshot that
 * restates an older version can also delete keys present at that version and absent at the newest:
 * when the watermark passes one, {@link SnapshotApplyOperator} visits every key with state first (a
 * scan, counted), and only those present at a restated version apply anything.
 *
 * <p>Bitemporal deletes, exactly and lazily. SPEC §10 deletes, at every snapshot, every key it
 * lacks. A delete where the key is absent changes no belief until a later snapshot restates an
 * older version with the key: then the first version after it at which the key has an event (the
 * next applied version where it is not held) must close it. The function skips those deletes and,
 * when it upserts a key at a version, first writes the one delete that now matters, if the key is
 * absent at that next version: the delete of the last snapshot there, at its own sequences. A
 * skipped delete changed no belief when it was skipped, so every belief equals the one all the
 * deletes make. For this each key keeps its {@link KeyPresence} and the snapshots it was held at.
 *
 * <p>State (besides the target's, {@link AutoCdcFunction}):
 *
 * <ul>
 *   <li>{@value #PENDING} (keyed map): snapshot id ({@link SnapshotId}, as an ISO-8859-1 string) to
 *       the key's rows in it, as they arrived; a row that was dead-lettered when it arrived but
 *       whose key and sequences could be read is kept with row kind UPDATE_BEFORE, which no
 *       snapshot row has, and only holds the key's state at that snapshot;
 *   <li>{@value #APPLIED} (keyed value): the last snapshot the key applied (BYTES), whether the key
 *       is present at the newest version (BOOLEAN), bitemporal only the change points of its {@link
 *       KeyPresence} (ARRAY of BYTES) and the ids of the snapshots it was held at (ARRAY of BYTES),
 *       else nulls; then the key's columns, to write its deletes;
 *   <li>{@value #COMPLETE} (broadcast map): every complete snapshot's mark ({@link SnapshotMarks}),
 *       by its id as an ISO-8859-1 string; SCD flows forget those the watermark has passed.
 * </ul>
 */
public class AutoCdcSnapshotFunction
        extends KeyedBroadcastProcessFunction<Object, RowData, RowData, RowData>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    public static final String PENDING = "auto-cdc-snapshot-pending";
    public static final String APPLIED = "auto-cdc-snapshot-applied";
    public static final String COMPLETE = "auto-cdc-snapshots-complete";

    private static final int APPLIED_ID = 0;
    private static final int APPLIED_PRESENT = 1;
    private static final int APPLIED_PRESENCE = 2;
    private static final int APPLIED_HELD = 3;
    private static final int APPLIED_KEY = 4;

    private final FlowRuntime runtime;
    private final EngineSpec spec;

    private transient MapState<String, List<RowData>> pending;
    private transient ValueState<RowData> applied;
    private transient RowDataSerializer rows;
    private transient SequenceClock clock;
    private transient int[] keyFields;
    private transient RowData.FieldGetter[] keyGetters;

    /** The complete snapshots in order (a copy of the broadcast state); null until read. */
    private transient CompleteSnapshots complete;

    private transient boolean bitemporal;

    /** Deletes written late, when a restated version made them matter (for tests). */
    private transient long restatedDeletes;

    /** Keys a scan caught up (for tests). */
    private transient long scanCatchUps;

    public AutoCdcSnapshotFunction(EngineSpec spec) {
        this.spec = spec;
        this.runtime = new FlowRuntime(spec);
    }

    /** The broadcast state of complete snapshots. */
    public static MapStateDescriptor<String, RowData> completeDescriptor(EngineSpec spec) {
        return new MapStateDescriptor<>(
                COMPLETE,
                StringSerializer.INSTANCE,
                new RowDataSerializer(SnapshotMarks.markType(spec)));
    }

    /**
     * State accesses so far, this function's (pending rows, applied snapshot) and the target's (for
     * tests and benchmarks).
     */
    public StateAccessCounter stateAccesses() {
        return runtime.stateAccesses();
    }

    /** Deletes written late, when a restated version made them matter (for tests). */
    long restatedDeletes() {
        return restatedDeletes;
    }

    /** Keys a scan caught up (for tests). */
    long scanCatchUps() {
        return scanCatchUps;
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
        runtime.open(KeyedStateAccess.of(getRuntimeContext()));
        rows = new RowDataSerializer(spec.inputType());
        pending = getRuntimeContext().getMapState(pendingDescriptor());
        applied = getRuntimeContext().getState(appliedDescriptor());
        bitemporal = spec.flow().targetType() == TargetType.BITEMPORAL;
        clock = SnapshotMarks.clock(spec);
        int[] keys = spec.flow().keyIndexes();
        keyFields = new int[keys.length];
        keyGetters = new RowData.FieldGetter[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keyFields[i] = spec.baseFields()[keys[i]];
            keyGetters[i] =
                    RowData.createFieldGetter(
                            spec.inputType().getTypeAt(keyFields[i]), keyFields[i]);
        }
    }

    private MapStateDescriptor<String, List<RowData>> pendingDescriptor() {
        return new MapStateDescriptor<>(
                PENDING,
                StringSerializer.INSTANCE,
                new ListSerializer<>(new RowDataSerializer(spec.inputType())));
    }

    /** The state of each key's progress ({@value #APPLIED}), whose keys a scan visits. */
    ValueStateDescriptor<RowData> appliedDescriptor() {
        return new ValueStateDescriptor<>(APPLIED, new RowDataSerializer(appliedType()));
    }

    /** last applied snapshot id, present, presence points, held ids, then the key columns. */
    private RowType appliedType() {
        List<LogicalType> types = new ArrayList<>();
        List<String> names = new ArrayList<>();
        types.add(new VarBinaryType(VarBinaryType.MAX_LENGTH));
        names.add("snapshot");
        types.add(new BooleanType());
        names.add("present");
        types.add(new ArrayType(new VarBinaryType(VarBinaryType.MAX_LENGTH)));
        names.add("presence");
        types.add(new ArrayType(new VarBinaryType(VarBinaryType.MAX_LENGTH)));
        names.add("held");
        for (int k : spec.flow().keyIndexes()) {
            int f = spec.baseFields()[k];
            types.add(spec.inputType().getTypeAt(f));
            names.add(spec.inputType().getFieldNames().get(f));
        }
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }

    @Override
    public void processElement(RowData row, ReadOnlyContext ctx, Collector<RowData> out)
            throws Exception {
        FlowRuntime.Effects fx = AutoCdcTruncateFunction.effects(ctx.timerService(), ctx);
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
                    AutoCdcFunction.DEAD_LETTERS,
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
            fx.output(AutoCdcFunction.DEAD_LETTERS, refused);
            id = hasKey(row) ? decoder.snapshotId(row) : null;
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
        List<RowData> waiting = pending.get(text(id));
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
        pending.put(text(id), waiting);
    }

    private void late(RowData row, FlowRuntime.Effects fx) {
        runtime.metrics().droppedLate.inc();
        fx.output(
                AutoCdcFunction.LATE_EVENTS,
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
        BroadcastState<String, RowData> state = ctx.getBroadcastState(completeDescriptor(spec));
        completeSnapshots(state);
        if (!bitemporal) {
            // every key with work at them ran at that watermark (a present key re-arms just after
            // each): no key needs them again, and a cursor need not be in the map
            complete.forgetPassed(ctx.currentWatermark(), id -> remove(state, id));
        }
        byte[] id = mark.getBinary(SnapshotMarks.ID);
        if (mark.getBoolean(SnapshotMarks.HELD)) {
            // the rows stay waiting (the watermark stays below the snapshot); copies show why
            String key = text(id);
            ctx.applyToKeyedState(
                    pendingDescriptor(),
                    (Object k, MapState<String, List<RowData>> rowsOfKey) -> {
                        List<RowData> held = rowsOfKey.get(key);
                        if (held == null) {
                            return;
                        }
                        for (RowData r : held) {
                            if (r.getRowKind() != RowKind.UPDATE_BEFORE) {
                                runtime.metrics().droppedLate.inc();
                                ctx.output(
                                        AutoCdcFunction.LATE_EVENTS,
                                        runtime.decoder()
                                                .letterOf(
                                                        r,
                                                        DeadLetter.SNAPSHOT_HELD,
                                                        "the snapshot has "
                                                                + mark.getLong(SnapshotMarks.ROWS)
                                                                + " rows, too few against the last"
                                                                + " complete one: it and every"
                                                                + " later snapshot wait; raise"
                                                                + " the flow's"
                                                                + " snapshot-hold-threshold and"
                                                                + " restart from a savepoint to"
                                                                + " apply it"));
                            }
                        }
                    });
            return;
        }
        state.put(text(id), mark);
        complete.add(mark);
    }

    private static void remove(BroadcastState<String, RowData> state, byte[] id) {
        try {
            state.remove(text(id));
        } catch (Exception e) {
            throw new IllegalStateException("cannot forget a complete snapshot", e);
        }
    }

    /** Reads the complete snapshots from the broadcast state, once per instance. */
    void completeSnapshots(ReadOnlyBroadcastState<String, RowData> state) throws Exception {
        if (complete == null) {
            complete =
                    new CompleteSnapshots(mark -> runtime.decoder().sequence(delete(null, mark)));
            for (Map.Entry<String, RowData> e : state.immutableEntries()) {
                complete.add(e.getValue());
            }
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out)
            throws Exception {
        FlowRuntime.Effects fx = AutoCdcTruncateFunction.effects(ctx.timerService(), ctx);
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            runtime.onTimer(timestamp, ctx.getCurrentKey(), fx);
            return;
        }
        completeSnapshots(ctx.getBroadcastState(completeDescriptor(spec)));
        StateAccessCounter counter = runtime.stateAccesses();
        counter.valueReads++;
        catchUp(applied.value(), ctx.timerService().currentWatermark(), fx, out);
    }

    /**
     * Whether the watermark moving from {@code after} to {@code upTo} passes a snapshot that
     * restates an older version, so that every key must be visited first ({@link
     * SnapshotApplyOperator}).
     */
    boolean needsScan(ReadOnlyBroadcastState<String, RowData> state, long after, long upTo)
            throws Exception {
        if (!bitemporal) {
            return false;
        }
        completeSnapshots(state);
        return complete.restatingBetween(after, upTo);
    }

    /**
     * One key of a scan, before the watermark {@code watermark} passes snapshots that restate older
     * versions: catches the key up if it is present at the version of one of them after its last
     * applied snapshot; else leaves it, since only such a key can change there without a row (a key
     * with rows has its own timer, and one present at the newest version its re-armed one).
     */
    void scanKey(long watermark, FlowRuntime.Effects fx, Collector<RowData> out) throws Exception {
        StateAccessCounter counter = runtime.stateAccesses();
        counter.valueReads++;
        RowData state = applied.value();
        if (state == null || state.isNullAt(APPLIED_PRESENCE)) {
            return;
        }
        KeyPresence presence = presence(state);
        for (byte[] id = complete.after(state.getBinary(APPLIED_ID));
                complete.passed(id, watermark) != null;
                id = complete.after(id)) {
            if (presence.at(complete.get(id).version()) && complete.restatesOlder(id)) {
                scanCatchUps++;
                catchUp(state, watermark, fx, out);
                return;
            }
        }
    }

    /**
     * Applies, in order, every snapshot after the key's last that is complete and that the
     * watermark has passed (a complete mark may arrive before the rows of its snapshot on another
     * channel, never after the watermark that passes it); then re-arms.
     *
     * @param state the key's {@value #APPLIED} row, read by the caller (null: none)
     */
    private void catchUp(
            RowData state, long watermark, FlowRuntime.Effects fx, Collector<RowData> out)
            throws Exception {
        StateAccessCounter counter = runtime.stateAccesses();
        byte[] cursor = state == null ? null : state.getBinary(APPLIED_ID);
        boolean present = state != null && state.getBoolean(APPLIED_PRESENT);
        KeyPresence presence = state == null ? KeyPresence.absent() : presence(state);
        Set<String> held = state == null ? new HashSet<>() : held(state);
        TreeMap<byte[], List<RowData>> waiting = new TreeMap<>(SnapshotId::compare);
        counter.iteratorSteps++; // the seek
        for (Map.Entry<String, List<RowData>> e : pending.entries()) {
            counter.iteratorSteps++;
            waiting.put(id(e.getKey()), e.getValue());
        }
        Object[] key = state != null ? keyOf(state, APPLIED_KEY) : keyOfRows(waiting);
        if (key == null) {
            return; // nothing of this key is left
        }
        byte[] last = cursor;
        byte[] next = complete.passed(complete.after(cursor), watermark);
        while (next != null) {
            if (bitemporal ? !presence.ever() : !present) {
                // a key never present (SCD: absent) changes only at its next row of a passed,
                // complete snapshot
                next = null;
                for (byte[] w : (last == null ? waiting : waiting.tailMap(last, false)).keySet()) {
                    if (complete.contains(w)) {
                        next = complete.passed(w, watermark);
                        break;
                    }
                }
                if (next == null) {
                    break;
                }
            }
            CompleteSnapshots.Snapshot snapshot = complete.get(next);
            List<RowData> rowsOfKey = waiting.remove(next);
            if (rowsOfKey != null) {
                counter.mapWrites++;
                pending.remove(text(next));
            }
            if (bitemporal) {
                applyBitemporal(snapshot, rowsOfKey, key, presence, held, fx, out);
                present = presence.atEnd();
            } else if (rowsOfKey == null) {
                if (present) {
                    runtime.apply(delete(key, snapshot.mark()), fx, out, null);
                }
                present = false;
            } else {
                RowData upsert = upsertOf(rowsOfKey, fx);
                if (upsert != null) {
                    runtime.apply(upsert, fx, out, null);
                    present = true;
                }
            }
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
                pending.remove(text(e.getKey()));
                for (RowData r : e.getValue()) {
                    if (r.getRowKind() != RowKind.UPDATE_BEFORE) {
                        late(r, fx);
                    }
                }
            } else if (time > watermark) {
                earliest = earliest == null ? time : Math.min(earliest, time);
            }
        }
        if (last != null && (present || bitemporal || earliest != null)) {
            counter.valueWrites++;
            applied.update(appliedRow(last, present, presence, held, key));
        } else if (last != null && state != null) {
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

    /**
     * Applies one complete snapshot to a bitemporal key: its rows, else a delete where the key is
     * present; keeps the key's presence and held snapshots up to date (see the class comment).
     */
    private void applyBitemporal(
            CompleteSnapshots.Snapshot snapshot,
            List<RowData> rowsOfKey,
            Object[] key,
            KeyPresence presence,
            Set<String> held,
            FlowRuntime.Effects fx,
            Collector<RowData> out)
            throws Exception {
        byte[] version = snapshot.version();
        CompleteSnapshots.Snapshot next = complete.successor(version, snapshot.id(), held);
        byte[] until = next == null ? null : next.version();
        if (rowsOfKey == null) {
            if (presence.at(version)) {
                runtime.apply(delete(key, snapshot.mark()), fx, out, null);
                presence.set(version, until, false);
            }
            return;
        }
        RowData upsert = upsertOf(rowsOfKey, fx);
        if (upsert == null) {
            held.add(text(snapshot.id()));
            return;
        }
        if (next != null && !presence.at(until)) {
            // the delete the key skipped at the next version, at that snapshot's own sequences,
            // now closes it: written first, so that the upsert never shows the key present beyond
            runtime.apply(delete(key, next.mark()), fx, out, null);
            restatedDeletes++;
        }
        runtime.apply(upsert, fx, out, null);
        presence.set(version, until, true);
    }

    /**
     * The row a key's rows of one snapshot upsert, or null when the key is held there. Rows equal
     * on the target's columns are one. Different rows, or a row held because it was refused on
     * arrival next to valid ones, leave the key as it was: every valid row then goes to the dead
     * letters too, so that none is lost.
     */
    private RowData upsertOf(List<RowData> rowsOfKey, FlowRuntime.Effects fx) {
        List<RowData> valid = new ArrayList<>(rowsOfKey.size());
        for (RowData r : rowsOfKey) {
            if (r.getRowKind() != RowKind.UPDATE_BEFORE) {
                valid.add(r);
            }
        }
        if (valid.isEmpty()) {
            return null;
        }
        boolean conflict = valid.size() < rowsOfKey.size();
        if (!conflict && valid.size() > 1) {
            Object[] first = runtime.decode(valid.get(0), fx).row();
            for (RowData r : valid.subList(1, valid.size())) {
                conflict |= !sameRow(first, runtime.decode(r, fx).row());
            }
        }
        if (conflict) {
            for (RowData r : valid) {
                runtime.metrics().deadLettered.inc();
                fx.output(
                        AutoCdcFunction.DEAD_LETTERS,
                        runtime.decoder()
                                .letterOf(
                                        r,
                                        DeadLetter.DUPLICATE_KEY_IN_SNAPSHOT,
                                        "the key has "
                                                + rowsOfKey.size()
                                                + " different rows in one snapshot; all are"
                                                + " dead letters and the key stays as it was"));
            }
            return null;
        }
        return valid.get(0);
    }

    /**
     * A snapshot id as a map key: its bytes as ISO-8859-1 characters, one per byte (a heap map
     * compares byte arrays by identity).
     */
    static String text(byte[] id) {
        return new String(id, StandardCharsets.ISO_8859_1);
    }

    private static byte[] id(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A delete of the key (null: no key columns set) at a complete snapshot's sequences. */
    private RowData delete(Object[] key, RowData mark) {
        GenericRowData row = new GenericRowData(RowKind.DELETE, spec.inputType().getFieldCount());
        for (int i = 0; key != null && i < keyFields.length; i++) {
            row.setField(keyFields[i], key[i]);
        }
        row.setField(
                spec.sequenceField(),
                markField(mark, SnapshotMarks.SEQUENCE, spec.sequenceField()));
        if (spec.systemSequenceField() >= 0) {
            row.setField(
                    spec.systemSequenceField(),
                    markField(mark, SnapshotMarks.SYSTEM_SEQUENCE, spec.systemSequenceField()));
        }
        return row;
    }

    private Object markField(RowData mark, int pos, int inputField) {
        return RowData.createFieldGetter(spec.inputType().getTypeAt(inputField), pos)
                .getFieldOrNull(mark);
    }

    /** Rows equal on the target's columns, as IS NOT DISTINCT FROM: -0.0 is 0.0. */
    private static boolean sameRow(Object[] a, Object[] b) {
        for (int i = 0; i < a.length; i++) {
            Object x = a[i];
            Object y = b[i];
            boolean same =
                    x instanceof Double dx && y instanceof Double dy
                            ? dx.doubleValue() == dy.doubleValue() || dx.isNaN() && dy.isNaN()
                            : x instanceof Float fx && y instanceof Float fy
                                    ? fx.floatValue() == fy.floatValue() || fx.isNaN() && fy.isNaN()
                                    : Arrays.deepEquals(new Object[] {x}, new Object[] {y});
            if (!same) {
                return false;
            }
        }
        return true;
    }

    /** Whether every key column of the row is set (a null key is no key to hold). */
    private boolean hasKey(RowData row) {
        for (RowData.FieldGetter g : keyGetters) {
            if (g.getFieldOrNull(row) == null) {
                return false;
            }
        }
        return true;
    }

    private Object[] keyOf(RowData row, int offset) {
        Object[] key = new Object[keyFields.length];
        for (int i = 0; i < key.length; i++) {
            key[i] =
                    RowData.createFieldGetter(spec.inputType().getTypeAt(keyFields[i]), offset + i)
                            .getFieldOrNull(row);
        }
        return key;
    }

    private Object[] keyOfRows(TreeMap<byte[], List<RowData>> waiting) {
        if (waiting.isEmpty()) {
            return null;
        }
        RowData row = waiting.firstEntry().getValue().get(0);
        Object[] key = new Object[keyFields.length];
        for (int i = 0; i < key.length; i++) {
            key[i] = keyGetters[i].getFieldOrNull(row);
        }
        return key;
    }

    private RowData appliedRow(
            byte[] id, boolean present, KeyPresence presence, Set<String> held, Object[] key) {
        GenericRowData row = new GenericRowData(APPLIED_KEY + key.length);
        row.setField(APPLIED_ID, id);
        row.setField(APPLIED_PRESENT, present);
        if (bitemporal) {
            row.setField(
                    APPLIED_PRESENCE,
                    new GenericArrayData(presence.points().toArray(new byte[0][])));
            byte[][] ids = new byte[held.size()][];
            int i = 0;
            for (String h : held) {
                ids[i++] = id(h);
            }
            row.setField(APPLIED_HELD, new GenericArrayData(ids));
        }
        for (int i = 0; i < key.length; i++) {
            row.setField(APPLIED_KEY + i, key[i]);
        }
        return row;
    }

    private static KeyPresence presence(RowData state) {
        if (state.isNullAt(APPLIED_PRESENCE)) {
            return KeyPresence.absent();
        }
        ArrayData points = state.getArray(APPLIED_PRESENCE);
        List<byte[]> list = new ArrayList<>(points.size());
        for (int i = 0; i < points.size(); i++) {
            list.add(points.getBinary(i));
        }
        return KeyPresence.of(list);
    }

    private static Set<String> held(RowData state) {
        Set<String> held = new HashSet<>();
        if (!state.isNullAt(APPLIED_HELD)) {
            ArrayData ids = state.getArray(APPLIED_HELD);
            for (int i = 0; i < ids.size(); i++) {
                held.add(text(ids.getBinary(i)));
            }
        }
        return held;
    }
}
