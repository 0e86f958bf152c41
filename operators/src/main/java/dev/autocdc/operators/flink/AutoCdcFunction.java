package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.BitemporalEngine;
import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.Flow;
import dev.autocdc.operators.core.Op;
import dev.autocdc.operators.core.Scd1Engine;
import dev.autocdc.operators.core.Scd2Engine;
import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.core.TimelineEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * AUTO CDC as a keyed Flink function: applies each event of a key (see {@link EngineSpec} for the input
 * layout; key the stream with {@link FlowKeySelector}) to the key's history in keyed state and emits the
 * target's changelog (SPEC §8): {@code +I}, {@code -U}/{@code +U} (or {@code +U} alone in upsert mode)
 * and {@code -D}, each retraction carrying exactly the row it retracts.
 *
 * <p>Guarantees: the materialized changelog equals SPEC §3-5 for the events processed so far, in any
 * arrival order, on the RocksDB and the heap backends, across checkpoints and restores (state is only
 * in Flink keyed state, with explicit serializers). Invalid events (SPEC §11: null key, null in a
 * sequence, bad COLUMNS TO UPDATE, values that do not convert) go to {@link #DEAD_LETTERS} with a
 * reason code and are counted; they never throw.
 *
 * <p>State per key (names are part of the savepoint format; see docs/state.md):
 * <ul>
 *   <li>SCD1: {@value #SCD1_EVENTS}: the few events that still decide the row;</li>
 *   <li>SCD2: {@value #SCD2_HEAD} (the newest timeline entry) and {@value #SCD2_TIMELINE} (every entry,
 *       newest first in RocksDB);</li>
 *   <li>bitemporal: {@value #BITEMPORAL_HEAD} and {@value #BITEMPORAL_EVENTS};</li>
 *   <li>{@value #TOMBSTONE_EXPIRY}: when a deleted key is forgotten (processing time, SPEC §7);</li>
 *   <li>SCD2 with a history retention: {@value #HISTORY_FLOOR} (the oldest sequence still held) and
 *       {@value #HISTORY_PRUNE_AT} (the pending pruning timer).</li>
 * </ul>
 *
 * <p>Not handled here: APPLY AS TRUNCATE WHEN needs every key, so a truncate reaching this function
 * is dead-lettered ({@link DeadLetter#UNSUPPORTED_TRUNCATE}); the job routes truncates through a
 * broadcast instead.
 */
public class AutoCdcFunction extends KeyedProcessFunction<Row, RowData, RowData> {
    private static final long serialVersionUID = 1L;

    public static final String SCD1_EVENTS = "auto-cdc-scd1-decisive-events";
    public static final String SCD2_HEAD = "auto-cdc-scd2-head";
    public static final String SCD2_TIMELINE = "auto-cdc-scd2-timeline";
    public static final String BITEMPORAL_HEAD = "auto-cdc-bitemporal-head";
    public static final String BITEMPORAL_EVENTS = "auto-cdc-bitemporal-events";
    public static final String TOMBSTONE_EXPIRY = "auto-cdc-tombstone-expiry";
    public static final String HISTORY_FLOOR = "auto-cdc-history-floor";
    public static final String HISTORY_PRUNE_AT = "auto-cdc-history-prune-at";

    /** Side output of events the engine cannot apply. */
    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("auto-cdc-dead-letters", TypeInformation.of(DeadLetter.class));
    /**
     * Side output of events that would change history already dropped by the history retention
     * (reason {@value DeadLetter#BEFORE_RETAINED_HISTORY}).
     */
    public static final OutputTag<DeadLetter> LATE_EVENTS =
            new OutputTag<>("auto-cdc-late-events", TypeInformation.of(DeadLetter.class));

    private final EngineSpec spec;

    private transient Flow flow;
    private transient Scd1Engine scd1;
    private transient Scd2Engine scd2;
    private transient BitemporalEngine bitemporal;
    private transient ValueState<List<ChangeEvent>> scd1Events;
    private transient ValueState<TimelineEntry> scd2Head;
    private transient MapState<SequenceKey, TimelineEntry> scd2Timeline;
    private transient ValueState<BitemporalHead> bitemporalHead;
    private transient MapState<SequenceKey, TimelineEntry> bitemporalEvents;
    private transient ValueState<Long> tombstoneExpiry;
    private transient ValueState<byte[]> historyFloor;
    private transient ValueState<Long> historyPruneAt;
    private transient dev.autocdc.operators.core.EngineCounters engineCounters;
    private transient long seenLate;
    private transient long seenTies;
    private transient long seenDuplicates;
    private transient Counter lateEvents;
    private transient Counter droppedLate;
    private transient Counter ties;
    private transient Counter duplicates;
    private transient FlinkTimeline timeline;
    private transient FlinkBitemporalStore bitemporalStore;
    private transient RowData.FieldGetter[] baseGetters;
    private transient LogicalType[] baseTypes;
    private transient LogicalType[] targetTypes;
    private transient StateAccessCounter counter;
    private transient Counter upserted;
    private transient Counter deleted;
    private transient Counter deadLettered;
    private transient Counter skippedUpdateBefore;

    public AutoCdcFunction(EngineSpec spec) {
        this.spec = spec;
    }

    public EngineSpec spec() {
        return spec;
    }

    /** State accesses so far (for tests and benchmarks). */
    public StateAccessCounter stateAccesses() {
        return counter;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        flow = spec.flow();
        counter = new StateAccessCounter();
        List<dev.autocdc.operators.core.ColumnType> types = flow.columnTypes();
        switch (flow.targetType()) {
            case SCD1:
                scd1 = new Scd1Engine(flow);
                scd1Events = getRuntimeContext().getState(new ValueStateDescriptor<>(SCD1_EVENTS, StateSerializer.decisiveEvents(types)));
                engineCounters = scd1.counters();
                break;
            case SCD2:
                scd2 = new Scd2Engine(flow);
                scd2Head = getRuntimeContext().getState(new ValueStateDescriptor<>(SCD2_HEAD, StateSerializer.timelineEntry(types)));
                scd2Timeline = getRuntimeContext().getMapState(new MapStateDescriptor<>(SCD2_TIMELINE,
                        DescendingSequenceKeySerializer.INSTANCE, StateSerializer.timelineEntry(types)));
                timeline = new FlinkTimeline(scd2Head, scd2Timeline, StateBackendProbe.iteratesInKeyOrder(getRuntimeContext()), counter);
                engineCounters = scd2.counters();
                historyFloor = getRuntimeContext().getState(new ValueStateDescriptor<>(HISTORY_FLOOR,
                        org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer.INSTANCE));
                historyPruneAt = getRuntimeContext().getState(new ValueStateDescriptor<>(HISTORY_PRUNE_AT, Types.LONG));
                break;
            default:
                bitemporal = new BitemporalEngine(flow);
                bitemporalHead = getRuntimeContext().getState(new ValueStateDescriptor<>(BITEMPORAL_HEAD, StateSerializer.bitemporalHead(types)));
                bitemporalEvents = getRuntimeContext().getMapState(new MapStateDescriptor<>(BITEMPORAL_EVENTS,
                        DescendingSequenceKeySerializer.INSTANCE, StateSerializer.timelineEntry(types)));
                bitemporalStore = new FlinkBitemporalStore(bitemporalHead, bitemporalEvents, counter);
                engineCounters = bitemporal.counters();
        }
        tombstoneExpiry = getRuntimeContext().getState(new ValueStateDescriptor<>(TOMBSTONE_EXPIRY, Types.LONG));

        RowType input = spec.inputType();
        int[] base = spec.baseFields();
        baseGetters = new RowData.FieldGetter[base.length];
        baseTypes = new LogicalType[base.length];
        for (int i = 0; i < base.length; i++) {
            baseTypes[i] = input.getTypeAt(base[i]);
            baseGetters[i] = RowData.createFieldGetter(baseTypes[i], base[i]);
        }
        targetTypes = spec.targetType().getChildren().toArray(new LogicalType[0]);

        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("flow", flow.name());
        upserted = metrics.counter("num_upserted_rows");
        deleted = metrics.counter("num_deleted_rows");
        deadLettered = metrics.counter("num_dead_letters");
        skippedUpdateBefore = metrics.counter("num_skipped_update_before");
        lateEvents = metrics.counter("num_late_events");
        droppedLate = metrics.counter("num_late_events_dropped");
        ties = metrics.counter("num_conflicting_ties");
        duplicates = metrics.counter("num_duplicate_events");
    }

    @Override
    public void processElement(RowData input, Context ctx, Collector<RowData> out) throws Exception {
        if (input.getRowKind() == RowKind.UPDATE_BEFORE) {
            skippedUpdateBefore.inc(); // a changelog source's -U: its +U carries the new row
            return;
        }
        ChangeEvent event = toEvent(input, ctx);
        if (event == null) {
            return;
        }
        if (spec.historyRetention() != null && isBeforeRetainedHistory(event)) {
            droppedLate.inc();
            ctx.output(LATE_EVENTS, new DeadLetter(flow.name(), DeadLetter.BEFORE_RETAINED_HISTORY,
                    "the event's sequence is at or before the oldest version still held; the history it would"
                            + " change was dropped by the history retention", describe(input)));
            return;
        }
        List<TargetChange> changes = new ArrayList<>(4);
        boolean absent;
        switch (flow.targetType()) {
            case SCD1: {
                List<ChangeEvent> state = scd1Events.value();
                counter.valueReads++;
                List<ChangeEvent> next = scd1.apply(state, event, changes);
                if (next != state) {
                    scd1Events.update(next);
                    counter.valueWrites++;
                }
                absent = Scd1Engine.isTombstone(next);
                break;
            }
            case SCD2:
                timeline.now = ctx.timerService().currentProcessingTime();
                scd2.apply(timeline, event, changes);
                absent = timeline.lastHead.state() == null;
                scheduleHistoryPruning(ctx);
                break;
            default:
                bitemporal.apply(bitemporalStore, event, changes);
                absent = bitemporalStore.lastHead.state() == null;
        }
        emit(changes, out);
        countEngineEvents();
        trackTombstone(absent, ctx);
    }

    private void countEngineEvents() {
        lateEvents.inc(engineCounters.late() - seenLate);
        ties.inc(engineCounters.conflictingTies() - seenTies);
        duplicates.inc(engineCounters.duplicates() - seenDuplicates);
        seenLate = engineCounters.late();
        seenTies = engineCounters.conflictingTies();
        seenDuplicates = engineCounters.duplicates();
    }

    private boolean isBeforeRetainedHistory(ChangeEvent event) throws Exception {
        byte[] floor = historyFloor == null ? null : historyFloor.value();
        return floor != null && SequenceCodec.compare(event.sequence(), floor) <= 0;
    }

    private void scheduleHistoryPruning(Context ctx) throws Exception {
        if (spec.historyRetention() != null && historyPruneAt.value() == null) {
            long at = ctx.timerService().currentProcessingTime() + spec.historyRetention().toMillis();
            ctx.timerService().registerProcessingTimeTimer(at);
            historyPruneAt.update(at);
        }
    }

    /** Drops the versions that closed longer ago than the history retention (SPEC §7). */
    private void pruneHistory(long timestamp, OnTimerContext ctx) throws Exception {
        historyPruneAt.clear();
        long cutoff = timestamp - spec.historyRetention().toMillis();
        List<TimelineEntry> ascending = timeline.ascending();
        byte[] floor = dev.autocdc.operators.core.HistoryRetention.floor(ascending, cutoff);
        if (floor != null) {
            List<TimelineEntry> kept = new ArrayList<>();
            for (TimelineEntry e : ascending) {
                if (SequenceCodec.compare(e.sequence(), floor) < 0) {
                    timeline.remove(e.sequence());
                } else {
                    kept.add(e);
                }
            }
            historyFloor.update(floor);
            ascending = kept;
        }
        long next = dev.autocdc.operators.core.HistoryRetention.nextDue(ascending, cutoff);
        if (next >= 0) {
            long at = Math.max(next + spec.historyRetention().toMillis(), timestamp + 1);
            ctx.timerService().registerProcessingTimeTimer(at);
            historyPruneAt.update(at);
        }
    }

    /** Forgets a key that stayed deleted for the tombstone retention (SPEC §7). */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out) throws Exception {
        if (historyPruneAt != null) {
            Long pruneAt = historyPruneAt.value();
            if (pruneAt != null && pruneAt == timestamp) {
                pruneHistory(timestamp, ctx);
            }
        }
        Long expiry = tombstoneExpiry.value();
        if (expiry == null || expiry != timestamp) {
            return;
        }
        tombstoneExpiry.clear();
        switch (flow.targetType()) {
            case SCD1:
                scd1Events.clear();
                break;
            case SCD2:
                scd2Head.clear();
                scd2Timeline.clear();
                historyFloor.clear();
                Long pruneAt = historyPruneAt.value();
                if (pruneAt != null) {
                    ctx.timerService().deleteProcessingTimeTimer(pruneAt);
                    historyPruneAt.clear();
                }
                break;
            default:
                bitemporalHead.clear();
                bitemporalEvents.clear();
        }
    }

    private void trackTombstone(boolean absent, Context ctx) throws Exception {
        if (spec.tombstoneRetention() == null) {
            return;
        }
        Long expiry = tombstoneExpiry.value();
        if (absent && expiry == null) {
            long at = ctx.timerService().currentProcessingTime() + spec.tombstoneRetention().toMillis();
            ctx.timerService().registerProcessingTimeTimer(at);
            tombstoneExpiry.update(at);
        } else if (!absent && expiry != null) {
            ctx.timerService().deleteProcessingTimeTimer(expiry);
            tombstoneExpiry.clear();
        }
    }

    private void emit(List<TargetChange> changes, Collector<RowData> out) {
        for (TargetChange c : changes) {
            switch (c.kind()) {
                case INSERT:
                    out.collect(toRow(RowKind.INSERT, c.after()));
                    upserted.inc();
                    break;
                case UPDATE:
                    if (spec.outputMode() == OutputMode.RETRACT) {
                        out.collect(toRow(RowKind.UPDATE_BEFORE, c.before()));
                    }
                    out.collect(toRow(RowKind.UPDATE_AFTER, c.after()));
                    upserted.inc();
                    break;
                default:
                    out.collect(toRow(RowKind.DELETE, c.before()));
                    deleted.inc();
            }
        }
    }

    private RowData toRow(RowKind kind, Object[] values) {
        GenericRowData row = new GenericRowData(kind, values.length);
        for (int i = 0; i < values.length; i++) {
            row.setField(i, TypeMapping.toInternal(targetTypes[i], values[i]));
        }
        return row;
    }

    /** The event, or null after sending it to the dead letters. */
    private ChangeEvent toEvent(RowData input, Context ctx) {
        Object[] row = new Object[baseGetters.length];
        Object sequence;
        Object system = null;
        try {
            for (int i = 0; i < row.length; i++) {
                row[i] = TypeMapping.toJava(baseTypes[i], baseGetters[i].getFieldOrNull(input));
            }
            sequence = field(input, spec.sequenceField());
            if (spec.systemSequenceField() >= 0) {
                system = field(input, spec.systemSequenceField());
            }
        } catch (RuntimeException e) {
            return deadLetter(ctx, input, DeadLetter.BAD_VALUE, "a value does not convert: " + e.getMessage());
        }
        boolean truncate = flag(input, spec.truncateField());
        Op op = truncate ? Op.TRUNCATE
                : flag(input, spec.deleteField()) || input.getRowKind() == RowKind.DELETE ? Op.DELETE : Op.UPSERT;
        if (op == Op.TRUNCATE) {
            return deadLetter(ctx, input, DeadLetter.UNSUPPORTED_TRUNCATE,
                    "APPLY AS TRUNCATE WHEN needs the job's truncate broadcast; this function sees one key at a time");
        }
        for (int k : flow.keyIndexes()) {
            if (row[k] == null) {
                return deadLetter(ctx, input, DeadLetter.NULL_KEY, "key column " + flow.columnNames().get(k) + " is null");
            }
        }
        SequenceCodec seqCodec = flow.sequenceCodec();
        if (!seqCodec.isComplete(sequence)) {
            return deadLetter(ctx, input, DeadLetter.NULL_SEQUENCE, "the SEQUENCE BY value is null or has a null field");
        }
        byte[] systemBytes = null;
        if (flow.targetType() == TargetType.BITEMPORAL) {
            if (!flow.systemSequenceCodec().isComplete(system)) {
                return deadLetter(ctx, input, DeadLetter.NULL_SYSTEM_SEQUENCE,
                        "the SYSTEM SEQUENCE BY value is null or has a null field");
            }
            systemBytes = flow.systemSequenceCodec().encode(system);
        }
        boolean[] written = null;
        if (flow.hasColumnsToUpdate()) {
            Object list = spec.columnsToUpdateField() < 0 ? null : RowData.createFieldGetter(
                    spec.inputType().getTypeAt(spec.columnsToUpdateField()), spec.columnsToUpdateField()).getFieldOrNull(input);
            if (list != null) {
                written = new boolean[row.length];
                for (String name : columnNames(list)) {
                    if (name.isEmpty()) {
                        continue;
                    }
                    int i = flow.indexOf(name);
                    if (!flow.isValueColumn(i)) {
                        return deadLetter(ctx, input, DeadLetter.BAD_COLUMNS_TO_UPDATE, "COLUMNS TO UPDATE names "
                                + name + ", which is not a value column of the target " + flow.columnNames());
                    }
                    written[i] = true;
                }
            }
        }
        return new ChangeEvent(op, row, seqCodec.encode(sequence), systemBytes, written);
    }

    private Object field(RowData input, int pos) {
        LogicalType t = spec.inputType().getTypeAt(pos);
        return TypeMapping.toJava(t, RowData.createFieldGetter(t, pos).getFieldOrNull(input));
    }

    private static boolean flag(RowData input, int pos) {
        return pos >= 0 && !input.isNullAt(pos) && input.getBoolean(pos);
    }

    private List<String> columnNames(Object list) {
        List<String> names = new ArrayList<>();
        if (list instanceof ArrayData) {
            ArrayData a = (ArrayData) list;
            for (int i = 0; i < a.size(); i++) {
                if (!a.isNullAt(i)) {
                    names.add(a.getString(i).toString().trim());
                }
            }
        } else {
            for (String s : list.toString().split(",")) {
                names.add(s.trim());
            }
        }
        return names;
    }

    private ChangeEvent deadLetter(Context ctx, RowData input, String reason, String message) {
        deadLettered.inc();
        ctx.output(DEAD_LETTERS, new DeadLetter(flow.name(), reason, message, describe(input)));
        return null;
    }

    /** The input row as JSON text (best effort: values rendered by their Java form). */
    private String describe(RowData input) {
        RowType type = spec.inputType();
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < type.getFieldCount(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append('"').append(type.getFieldNames().get(i)).append("\": ");
            Object v;
            try {
                v = field(input, i);
            } catch (RuntimeException e) {
                v = "<unreadable>";
            }
            if (v == null) {
                b.append("null");
            } else if (v instanceof Number || v instanceof Boolean) {
                b.append(v);
            } else if (v instanceof Object[]) {
                b.append('"').append(Arrays.deepToString((Object[]) v).replace("\"", "\\\"")).append('"');
            } else {
                b.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            }
        }
        return b.append('}').toString();
    }

    static boolean isStringType(LogicalType t) {
        return t.getTypeRoot() == LogicalTypeRoot.VARCHAR || t.getTypeRoot() == LogicalTypeRoot.CHAR;
    }
}
