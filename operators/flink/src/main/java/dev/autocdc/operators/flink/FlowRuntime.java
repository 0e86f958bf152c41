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
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The per-key work of an AUTO CDC operator, shared by {@link AutoCdcFunction} and
 * {@link AutoCdcTruncateFunction}: turns input rows into events (or dead letters), applies them to the
 * key's state through the core engines, emits the changelog, keeps the retention timers and the
 * metrics. See {@link AutoCdcFunction} for the state it keeps.
 */
final class FlowRuntime implements Serializable {
    /** The SCD2 timeline's block size; tests lower it to stress blocks (any size restores any other). */
    static volatile int scd2BlockSize = FlinkTimeline.DEFAULT_BLOCK_SIZE;
    /**
     * Tests of the migration set this to write the recent entries as builds before the chain keys did (with
     * their old serializers), then restore into today's.
     */
    static volatile boolean recentWithoutChainKeys = false;

    private static final long serialVersionUID = 1L;

    private final EngineSpec spec;

    private transient Flow flow;
    private transient Scd1Engine scd1;
    private transient dev.autocdc.operators.core.EventOrder order;
    private transient Scd2Engine scd2;
    private transient BitemporalEngine bitemporal;
    private transient ValueState<List<ChangeEvent>> scd1Events;
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
    private transient RowData.FieldGetter[] inputGetters;
    private transient LogicalType[] inputTypes;
    private transient LogicalType[] baseTypes;
    private transient LogicalType[] targetTypes;
    private transient StateAccessCounter counter;
    private transient Counter upserted;
    private transient Counter deleted;
    private transient Counter deadLettered;
    private transient Counter skippedUpdateBefore;

    FlowRuntime(EngineSpec spec) {
        this.spec = spec;
    }

    /** State accesses so far (for tests and benchmarks). */
    EngineSpec spec() {
        return spec;
    }

    StateAccessCounter stateAccesses() {
        return counter;
    }

    /** Creates the states and metrics; call from the function's open(). */
    void open(KeyedStateAccess context) throws Exception {
        flow = spec.flow();
        order = new dev.autocdc.operators.core.EventOrder(flow);
        counter = new StateAccessCounter();
        List<dev.autocdc.operators.core.ColumnType> types = flow.columnTypes();
        switch (flow.targetType()) {
            case SCD1:
                scd1 = new Scd1Engine(flow);
                scd1Events = context.getState(scd1Descriptor());
                engineCounters = scd1.counters();
                break;
            case SCD2:
                scd2 = new Scd2Engine(flow);
                timeline = new FlinkTimeline(
                        context.getState(new ValueStateDescriptor<>(AutoCdcFunction.SCD2_RECENT, recentWithoutChainKeys
                                ? StateSerializer.recentEntriesWithoutChainKeys(false, types) : StateSerializer.recentEntries(types))),
                        context.getMapState(new MapStateDescriptor<>(AutoCdcFunction.SCD2_BLOCKS,
                                DescendingSequenceKeySerializer.INSTANCE, StateSerializer.timelineBlock(types))),
                        counter, new dev.autocdc.operators.core.StateCodec(types),
                        scd2BlockSize);
                // Savepoints of pre-release builds hold SCD2 history under these names (format 1, one entry
                // per map key). Registering them makes Flink check their serializers, which refuse format 1:
                // such a restore fails instead of silently starting every key without its history.
                context.getState(new ValueStateDescriptor<>(AutoCdcFunction.LEGACY_SCD2_HEAD, StateSerializer.timelineEntry(types)));
                context.getMapState(new MapStateDescriptor<>(AutoCdcFunction.LEGACY_SCD2_TIMELINE,
                        DescendingSequenceKeySerializer.INSTANCE, StateSerializer.timelineEntry(types)));
                engineCounters = scd2.counters();
                historyFloor = context.getState(new ValueStateDescriptor<>(AutoCdcFunction.HISTORY_FLOOR,
                        org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer.INSTANCE));
                historyPruneAt = context.getState(new ValueStateDescriptor<>(AutoCdcFunction.HISTORY_PRUNE_AT, Types.LONG));
                break;
            default:
                bitemporal = new BitemporalEngine(flow);
                FlinkTimeline belief = new FlinkTimeline(
                        context.getState(new ValueStateDescriptor<>(AutoCdcFunction.BITEMPORAL_RECENT, recentWithoutChainKeys
                                ? StateSerializer.recentEntriesWithoutChainKeys(true, types) : StateSerializer.bitemporalRecent(types))),
                        context.getMapState(new MapStateDescriptor<>(AutoCdcFunction.BITEMPORAL_BLOCKS,
                                DescendingSequenceKeySerializer.INSTANCE, StateSerializer.timelineBlock(types))),
                        counter, new dev.autocdc.operators.core.StateCodec(types), scd2BlockSize);
                bitemporalStore = new FlinkBitemporalStore(belief,
                        context.getState(new ValueStateDescriptor<>(AutoCdcFunction.BITEMPORAL_HEAD, StateSerializer.bitemporalHead(types))),
                        context.getState(new ValueStateDescriptor<>(AutoCdcFunction.BITEMPORAL_SNAPSHOT,
                                StateSerializer.bitemporalSnapshot(types))),
                        counter);
                // Savepoints of pre-release builds hold every event in one map, and a head of another format:
                // registering the map with another serializer makes such a restore fail (the head's serializer
                // refuses the old format by itself) instead of starting every key without its history.
                context.getMapState(new MapStateDescriptor<>(AutoCdcFunction.LEGACY_BITEMPORAL_EVENTS,
                        DescendingSequenceKeySerializer.INSTANCE, StateSerializer.timelineBlock(types)));
                engineCounters = bitemporal.counters();
                historyPruneAt = context.getState(new ValueStateDescriptor<>(AutoCdcFunction.HISTORY_PRUNE_AT, Types.LONG));
        }
        tombstoneExpiry = context.getState(new ValueStateDescriptor<>(AutoCdcFunction.TOMBSTONE_EXPIRY, Types.LONG));

        RowType input = spec.inputType();
        int[] base = spec.baseFields();
        baseGetters = new RowData.FieldGetter[base.length];
        baseTypes = new LogicalType[base.length];
        for (int i = 0; i < base.length; i++) {
            baseTypes[i] = input.getTypeAt(base[i]);
            baseGetters[i] = RowData.createFieldGetter(baseTypes[i], base[i]);
        }
        targetTypes = spec.targetType().getChildren().toArray(new LogicalType[0]);
        inputTypes = input.getChildren().toArray(new LogicalType[0]);
        inputGetters = new RowData.FieldGetter[inputTypes.length];
        for (int i = 0; i < inputTypes.length; i++) {
            inputGetters[i] = RowData.createFieldGetter(inputTypes[i], i);
        }

        MetricGroup metrics = context.getMetricGroup().addGroup("flow", flow.name());
        upserted = metrics.counter("num_upserted_rows");
        deleted = metrics.counter("num_deleted_rows");
        deadLettered = metrics.counter("num_dead_letters");
        skippedUpdateBefore = metrics.counter("num_skipped_update_before");
        lateEvents = metrics.counter("num_late_events");
        droppedLate = metrics.counter("num_late_events_dropped");
        ties = metrics.counter("num_conflicting_ties");
        duplicates = metrics.counter("num_duplicate_events");
    }

    /**
     * Applies one input row of the current key.
     *
     * @param floor the greatest truncate still in force (SCD1 with truncates), or null
     */
    void process(RowData input, Effects ctx, Collector<RowData> out, ChangeEvent floor) throws Exception {
        if (input.getRowKind() == RowKind.UPDATE_BEFORE) {
            skippedUpdateBefore.inc(); // a changelog source's -U: its +U carries the new row
            return;
        }
        ChangeEvent event = toEvent(input, ctx, false);
        if (event == null) {
            return;
        }
        if (isBeforeRetainedHistory(event, ctx)) {
            droppedLate.inc();
            ctx.output(AutoCdcFunction.LATE_EVENTS, located(new DeadLetter(flow.name(), DeadLetter.BEFORE_RETAINED_HISTORY,
                    "the event's sequence is at or before the oldest sequence the key still holds; the history it"
                            + " would change left state (history retention, or the key's tombstone expired)",
                    describe(input)), input));
            return;
        }
        List<TargetChange> changes = new ArrayList<>(4);
        boolean absent;
        boolean wasTombstone;
        switch (flow.targetType()) {
            case SCD1: {
                List<ChangeEvent> state = scd1Events.value();
                counter.valueReads++;
                // a key without state may be one a truncate cleared while its tombstone timer was pending
                wasTombstone = Scd1Engine.isTombstone(state) || state == null && spec.truncateField() >= 0;
                List<ChangeEvent> next = state;
                if (floor != null && !coveredByDelete(next, floor)) {
                    next = scd1.apply(next, floor, changes); // a key first seen after the truncate
                    absorbEngineCounts(); // the floor is not this event: it is neither late nor a tie
                }
                next = scd1.apply(next, event, changes);
                if (floor != null && next.size() == 1 && next.get(0) == floor) {
                    next = null; // only the truncate decides: the broadcast floor is the tombstone
                }
                if (next != state) {
                    if (next == null) {
                        scd1Events.clear();
                    } else {
                        scd1Events.update(next);
                    }
                    counter.valueWrites++;
                }
                absent = next != null && Scd1Engine.isTombstone(next);
                break;
            }
            case SCD2:
                wasTombstone = timeline.head() != null && timeline.head().state() == null; // the head is cached
                scd2.apply(timeline, event, changes);
                timeline.finishEvent();
                absent = timeline.lastHead.state() == null;
                scheduleHistoryPruning(ctx);
                break;
            default:
                wasTombstone = bitemporalStore.beliefHead() != null && bitemporalStore.beliefHead().state() == null; // cached
                bitemporal.apply(bitemporalStore, event, changes);
                bitemporalStore.finishEvent();
                absent = bitemporalStore.beliefHead() == null || bitemporalStore.beliefHead().state() == null;
                scheduleHistoryPruning(ctx);
        }
        emit(changes, out);
        countEngineEvents();
        if (absent || wasTombstone) {
            trackTombstone(absent, ctx); // present before and after: no tombstone timer to touch, no state read
        }
    }

    /**
     * Applies a truncate to one present key's SCD1 state (from the broadcast side, through
     * applyToKeyedState): the key's row is deleted unless events after the truncate keep it.
     */
    void applyTruncate(ValueState<List<ChangeEvent>> state, ChangeEvent truncate, Collector<RowData> out) throws Exception {
        List<ChangeEvent> before = state.value();
        List<TargetChange> changes = new ArrayList<>(1);
        List<ChangeEvent> next = scd1.apply(before, truncate, changes);
        if (next.size() == 1 && next.get(0) == truncate) {
            state.clear();
        } else if (next != before) {
            state.update(next);
        }
        emit(changes, out);
        countEngineEvents();
    }

    /** The SCD1 state's descriptor (for applyToKeyedState). */
    ValueStateDescriptor<List<ChangeEvent>> scd1Descriptor() {
        return new ValueStateDescriptor<>(AutoCdcFunction.SCD1_EVENTS, StateSerializer.decisiveEvents(flow.columnTypes()));
    }

    /** The side effects a runtime needs from its function's context. */
    interface Effects {
        TimerService timerService();

        <X> void output(OutputTag<X> tag, X value);
    }

    /** Whether the key already holds a delete at or after the truncate (then the truncate changes nothing). */
    private boolean coveredByDelete(List<ChangeEvent> state, ChangeEvent truncate) {
        if (state == null) {
            return false;
        }
        for (ChangeEvent e : state) {
            if (!e.isUpsert() && order.compare(e, truncate) >= 0) {
                return true;
            }
        }
        return false;
    }

    private void absorbEngineCounts() {
        seenLate = engineCounters.late();
        seenTies = engineCounters.conflictingTies();
        seenDuplicates = engineCounters.duplicates();
    }

    private void countEngineEvents() {
        lateEvents.inc(engineCounters.late() - seenLate);
        ties.inc(engineCounters.conflictingTies() - seenTies);
        duplicates.inc(engineCounters.duplicates() - seenDuplicates);
        seenLate = engineCounters.late();
        seenTies = engineCounters.conflictingTies();
        seenDuplicates = engineCounters.duplicates();
    }

    /**
     * Whether a type 2 or bitemporal event lands at or before the oldest sequence its key still holds
     * (SPEC §7). Reads the head once (the engine reuses it); reads the floor only for an event that is
     * not after the key's newest sequence, since every held entry is at or after the floor.
     */
    private boolean isBeforeRetainedHistory(ChangeEvent event, Effects ctx) throws Exception {
        byte[] newest;
        if (flow.targetType() == TargetType.SCD2) {
            timeline.beginEvent(writeTime(ctx));
            TimelineEntry head = timeline.head();
            newest = head == null ? null : head.sequence();
        } else if (flow.targetType() == TargetType.BITEMPORAL) {
            bitemporalStore.beginEvent(writeTime(ctx));
            BitemporalHead head = bitemporalStore.head();
            // the head carries the floors of both the history retention and a tombstone expiry
            return head != null && head.isBeforeRetainedHistory(event);
        } else {
            return false;
        }
        if (newest != null && SequenceCodec.compare(event.sequence(), newest) > 0) {
            return false;
        }
        byte[] floor = historyFloor.value();
        counter.valueReads++;
        return floor != null && SequenceCodec.compare(event.sequence(), floor) <= 0;
    }

    /** The time stamped on written history: only the history retention reads it (0 stores in one byte). */
    private long writeTime(Effects ctx) {
        return spec.historyRetention() == null ? 0 : ctx.timerService().currentProcessingTime();
    }

    private void raiseFloor(byte[] sequence) throws Exception {
        byte[] floor = historyFloor.value();
        if (sequence != null && (floor == null || SequenceCodec.compare(sequence, floor) > 0)) {
            historyFloor.update(sequence);
        }
    }

    private void scheduleHistoryPruning(Effects ctx) throws Exception {
        if (spec.historyRetention() != null && historyPruneAt.value() == null) {
            long at = ctx.timerService().currentProcessingTime() + spec.historyRetention().toMillis();
            ctx.timerService().registerProcessingTimeTimer(at);
            historyPruneAt.update(at);
        }
    }

    /** Drops the versions that closed longer ago than the history retention (SPEC §7). */
    private void pruneHistory(long timestamp, Effects ctx) throws Exception {
        historyPruneAt.clear();
        long cutoff = timestamp - spec.historyRetention().toMillis();
        if (flow.targetType() == TargetType.BITEMPORAL) {
            bitemporalStore.beginEvent(timestamp);
            bitemporal.compact(bitemporalStore, cutoff);
            bitemporalStore.finishEvent();
            long next = -1;
            for (java.util.Iterator<TimelineEntry> it = bitemporalStore.belief().newestFirst(); it.hasNext(); ) {
                long w = it.next().writtenAt();
                if (w > cutoff && (next < 0 || w < next)) {
                    next = w;
                }
            }
            rearmPruning(next, timestamp, ctx);
            return;
        }
        timeline.beginEvent(timestamp);
        List<TimelineEntry> ascending = timeline.ascending();
        byte[] floor = dev.autocdc.operators.core.HistoryRetention.floor(ascending, cutoff);
        if (floor != null) {
            timeline.removeBefore(floor);
            List<TimelineEntry> kept = new ArrayList<>();
            for (TimelineEntry e : ascending) {
                if (SequenceCodec.compare(e.sequence(), floor) >= 0) {
                    kept.add(e);
                }
            }
            raiseFloor(floor);
            ascending = kept;
        }
        rearmPruning(dev.autocdc.operators.core.HistoryRetention.nextDue(ascending, cutoff), timestamp, ctx);
    }

    private void rearmPruning(long nextDue, long now, Effects ctx) throws Exception {
        if (nextDue >= 0) {
            // at most a few passes per retention period: each reads the key's whole history
            long retention = spec.historyRetention().toMillis();
            long at = Math.max(nextDue + retention, now + Math.max(1, retention / 4));
            ctx.timerService().registerProcessingTimeTimer(at);
            historyPruneAt.update(at);
        }
    }

    /**
     * Runs the key's due timers: history pruning, and forgetting a key that stayed deleted for the
     * tombstone retention (SPEC §7). Timers are never deleted (two kinds may share a timestamp, and
     * Flink keeps one timer per key and time): a timer whose time no longer matches its state is stale
     * and does nothing.
     */
    void onTimer(long timestamp, Effects ctx) throws Exception {
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
            case SCD2: {
                // The history is in the sink: remember where it ends, so that an older event cannot
                // insert a row whose primary key the sink already holds (it goes to the late events).
                timeline.beginEvent(timestamp);
                TimelineEntry head = timeline.head();
                raiseFloor(head == null ? null : head.sequence());
                timeline.clear();
                historyPruneAt.clear();
                break;
            }
            default: {
                // Both timelines are frozen: a later event must be newer in business and in system time
                // (a correction recorded before the expiry would change beliefs the sink already holds).
                bitemporalStore.beginEvent(timestamp);
                BitemporalHead head = bitemporalStore.head();
                TimelineEntry newest = bitemporalStore.beliefHead();
                bitemporalStore.clear();
                historyPruneAt.clear();
                if (head != null && newest != null) {
                    bitemporalStore.setHead(new BitemporalHead(head.latestSystemSequence(), null, newest.sequence(),
                            head.latestSystemSequence()));
                }
            }
        }
    }

    private void trackTombstone(boolean absent, Effects ctx) throws Exception {
        if (spec.tombstoneRetention() == null) {
            return;
        }
        Long expiry = tombstoneExpiry.value();
        if (absent && expiry == null) {
            long at = ctx.timerService().currentProcessingTime() + spec.tombstoneRetention().toMillis();
            ctx.timerService().registerProcessingTimeTimer(at);
            tombstoneExpiry.update(at);
        } else if (!absent && expiry != null) {
            tombstoneExpiry.clear(); // its timer fires and finds nothing to do
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
    ChangeEvent toEvent(RowData input, Effects ctx, boolean truncateAllowed) {
        int parseError = spec.field(EngineSpec.PARSE_ERROR);
        if (parseError >= 0 && !input.isNullAt(parseError)) {
            int rawField = spec.field(EngineSpec.RAW);
            byte[] raw = rawField >= 0 && !input.isNullAt(rawField) ? input.getBinary(rawField) : null;
            deadLettered.inc();
            DeadLetter d = new DeadLetter(flow.name(), DeadLetter.PARSE_ERROR, "the source's format could not parse the record: "
                    + input.getString(parseError), raw == null ? null : new String(raw, java.nio.charset.StandardCharsets.UTF_8));
            d.raw = raw;
            ctx.output(AutoCdcFunction.DEAD_LETTERS, located(d, input));
            return null;
        }
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
        if (op == Op.TRUNCATE && !truncateAllowed) {
            return deadLetter(ctx, input, DeadLetter.UNSUPPORTED_TRUNCATE, "a truncate reached the keyed input: route"
                    + " truncates through the broadcast input (AutoCdc.apply does), since they apply to every key");
        }
        for (int k : flow.keyIndexes()) {
            if (op == Op.TRUNCATE) {
                break; // a truncate needs no key
            }
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
            Object list = spec.columnsToUpdateField() < 0 ? null
                    : inputGetters[spec.columnsToUpdateField()].getFieldOrNull(input);
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
        return TypeMapping.toJava(inputTypes[pos], inputGetters[pos].getFieldOrNull(input));
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

    private ChangeEvent deadLetter(Effects ctx, RowData input, String reason, String message) {
        deadLettered.inc();
        ctx.output(AutoCdcFunction.DEAD_LETTERS, located(new DeadLetter(flow.name(), reason, message, describe(input)), input));
        return null;
    }

    /** Adds the Kafka coordinates the input carries ({@code __topic}, {@code __partition}, {@code __offset}). */
    private DeadLetter located(DeadLetter d, RowData input) {
        int topic = spec.field(EngineSpec.TOPIC);
        int partition = spec.field(EngineSpec.PARTITION);
        int offset = spec.field(EngineSpec.OFFSET);
        d.topic = topic >= 0 && !input.isNullAt(topic) ? input.getString(topic).toString() : null;
        d.partition = partition >= 0 && !input.isNullAt(partition) ? input.getInt(partition) : null;
        d.offset = offset >= 0 && !input.isNullAt(offset) ? input.getLong(offset) : null;
        return d;
    }

    /** The input row as JSON text (see {@link JsonText}); a field that cannot be read is rendered as null. */
    private String describe(RowData input) {
        Object[] values = new Object[inputGetters.length];
        for (int i = 0; i < values.length; i++) {
            try {
                values[i] = TypeMapping.toJava(inputTypes[i], inputGetters[i].getFieldOrNull(input));
            } catch (RuntimeException e) {
                values[i] = null;
            }
        }
        return JsonText.object(spec.inputType().getFieldNames(), values);
    }
}
