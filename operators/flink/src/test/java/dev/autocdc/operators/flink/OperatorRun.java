package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.SequenceCodec;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.spec.TypeMapping;
import dev.autocdc.operators.flink.state.DescendingSequenceKeySerializer;
import dev.autocdc.operators.flink.state.RecentEntriesSerializer;
import dev.autocdc.operators.flink.state.SequenceKey;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.TimelineBlock;
import dev.autocdc.operators.flink.state.TimelineBlockSerializer;
import dev.autocdc.operators.flink.targets.FlinkTimeline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.InstantiationUtil;

/** The AUTO CDC function in a keyed operator test harness, on a chosen state backend. For tests. */
final class OperatorRun implements AutoCloseable {

    /** The state backends the engine must be correct on. */
    enum Backend {
        ROCKSDB,
        HASHMAP;

        StateBackend create() {
            return this == ROCKSDB ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
        }
    }

    private final EngineSpec spec;
    private final AutoCdcFunction function;
    private final KeyedOneInputStreamOperatorTestHarness<Object, RowData, RowData> harness;
    private int drained;
    private long checkpoint;

    private OperatorRun(
            EngineSpec spec,
            boolean previousRecentLayout,
            Backend backend,
            OperatorSubtaskState restore)
            throws Exception {
        this.spec = spec;
        // as Flink ships it to a task: through Java serialization (transient fields start empty)
        this.function =
                InstantiationUtil.clone(
                        new AutoCdcFunction(spec, previousRecentLayout),
                        AutoCdcFunction.class.getClassLoader());
        FlowKeySelector keys = new FlowKeySelector(spec);
        this.harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new AutoCdcOperator(function), keys, keys.getProducedType());
        harness.setStateBackend(backend.create());
        harness.setup(new RowDataSerializer(spec.targetType()));
        if (restore != null) {
            harness.initializeState(restore);
        }
        harness.open();
    }

    static OperatorRun start(EngineSpec spec, Backend backend) throws Exception {
        return new OperatorRun(spec, false, backend, null);
    }

    static OperatorRun restore(EngineSpec spec, Backend backend, OperatorSubtaskState state)
            throws Exception {
        return new OperatorRun(spec, false, backend, state);
    }

    /**
     * The materialized table after running the first {@code cut} input rows with {@code spec},
     * writing the recent entries in their previous layout when {@code previousLayout}, a snapshot,
     * and the rest of the rows in a run of {@code restored} (the same flow, say with another block
     * size) restored from the snapshot.
     */
    static Set<List<Object>> runRestoredAt(
            EngineSpec spec,
            boolean previousLayout,
            EngineSpec restored,
            Backend backend,
            List<Object[]> rows,
            int cut)
            throws Exception {
        ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
        OperatorSubtaskState state;
        try (OperatorRun first = new OperatorRun(spec, previousLayout, backend, null)) {
            for (Object[] r : rows.subList(0, cut)) {
                first.process(first.input(r));
            }
            table.apply(first.newOutput());
            state = first.snapshot();
        }
        try (OperatorRun second = restore(restored, backend, state)) {
            for (Object[] r : rows.subList(cut, rows.size())) {
                second.process(second.input(r));
            }
            table.apply(second.newOutput());
        }
        return table.rows();
    }

    /** Builds an input row from Java values, in the spec's input order. */
    RowData inputOfKind(RowKind kind, Object... values) {
        RowType type = spec.inputType();
        GenericRowData row = new GenericRowData(kind, values.length);
        for (int i = 0; i < values.length; i++) {
            row.setField(i, TypeMapping.toInternal(type.getTypeAt(i), values[i]));
        }
        return row;
    }

    RowData input(Object... values) {
        return inputOfKind(RowKind.INSERT, values);
    }

    void process(RowData row) throws Exception {
        harness.processElement(new StreamRecord<>(row, 0L));
    }

    void processAll(List<RowData> rows) throws Exception {
        for (RowData r : rows) {
            process(r);
        }
    }

    /** Output rows since the last call, as (kind, Java values). */
    List<Change> newOutput() {
        List<RowData> all = harness.extractOutputValues();
        List<Change> out = new ArrayList<>();
        RowType target = spec.targetType();
        for (int i = drained; i < all.size(); i++) {
            RowData r = all.get(i);
            Object[] values = new Object[target.getFieldCount()];
            for (int f = 0; f < values.length; f++) {
                LogicalType t = target.getTypeAt(f);
                values[f] =
                        TypeMapping.toJava(t, RowData.createFieldGetter(t, f).getFieldOrNull(r));
            }
            out.add(new Change(r.getRowKind(), values));
        }
        drained = all.size();
        return out;
    }

    List<DeadLetter> deadLetters() {
        List<DeadLetter> out = new ArrayList<>();
        var side = harness.getSideOutput(SideOutputs.DEAD_LETTERS);
        if (side != null) {
            side.forEach(r -> out.add(r.getValue()));
        }
        return out;
    }

    List<DeadLetter> lateEvents() {
        List<DeadLetter> out = new ArrayList<>();
        var side = harness.getSideOutput(SideOutputs.LATE_EVENTS);
        if (side != null) {
            side.forEach(r -> out.add(r.getValue()));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private KeyedStateBackend<Object> backendAt(Object key) {
        var backend =
                (KeyedStateBackend<Object>) (Object) harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(key);
        return backend;
    }

    /** The key's SCD2 blocks, read from the keyed state backend. */
    private MapState<SequenceKey, TimelineBlock> scd2Blocks(Object key) throws Exception {
        return backendAt(key)
                .getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new MapStateDescriptor<>(
                                StateNames.SCD2_BLOCKS,
                                DescendingSequenceKeySerializer.INSTANCE,
                                new TimelineBlockSerializer(spec.flow().columnTypes())));
    }

    /** The key's recent SCD2 entries, read from the keyed state backend. */
    private ValueState<TimelineBlock> scd2Recent(Object key) throws Exception {
        return backendAt(key)
                .getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>(
                                StateNames.SCD2_RECENT,
                                new RecentEntriesSerializer(
                                        spec.flow().columnTypes(),
                                        RecentEntriesSerializer.VERSION)));
    }

    /** How many timeline entries (SCD2) the key holds, read from the keyed state backend. */
    int timelineEntries(Object key) throws Exception {
        function.flushCache(); // the state as a checkpoint would see it
        var blocks = scd2Blocks(key);
        var recent = scd2Recent(key);
        int n = recent.value() == null ? 0 : recent.value().size();
        for (TimelineBlock block : blocks.values()) {
            n += block.size();
        }
        return n;
    }

    /**
     * Checks the SCD2 timeline's layout for a key (see {@link FlinkTimeline}): each block's key is
     * its newest entry, blocks hold ascending entries, at most twice the block size, and cover
     * disjoint, ordered ranges, each as its entries' bytes ({@link TimelineBlock#encoded}); the
     * recent entries come after every block. Returns the number of entries.
     */
    int checkTimelineLayout(Object key, int blockSize) throws Exception {
        function.flushCache(); // the state as a checkpoint would see it
        var blocks = scd2Blocks(key);
        var recent = scd2Recent(key);
        List<Map.Entry<SequenceKey, TimelineBlock>> all = new ArrayList<>();
        for (var e : blocks.entries()) {
            all.add(Map.entry(e.getKey(), e.getValue()));
        }
        all.sort((a, b) -> SequenceCodec.compare(a.getKey().bytes(), b.getKey().bytes()));
        byte[] previousKey = null;
        int n = 0;
        for (var e : all) {
            TimelineBlock block = e.getValue();
            if (!block.allStored()) { // the heap backend keeps the object put: it must be compact
                throw new AssertionError("a block in the map holds entries that were not encoded");
            }
            if (block.size() == 0 || block.size() > 2 * blockSize) {
                throw new AssertionError(
                        "block of " + block.size() + " entries (block size " + blockSize + ")");
            }
            if (!Arrays.equals(block.newest().sequence(), e.getKey().bytes())) {
                throw new AssertionError("a block's key is not its newest entry");
            }
            checkAscendingAfter(block, previousKey);
            previousKey = e.getKey().bytes();
            n += block.size();
        }
        TimelineBlock r = recent.value();
        if (r == null) {
            if (!all.isEmpty()) {
                throw new AssertionError("blocks without recent entries");
            }
            return n;
        }
        if (r.size() > blockSize) {
            throw new AssertionError(
                    "recent holds " + r.size() + " entries (block size " + blockSize + ")");
        }
        checkAscendingAfter(r, previousKey);
        return n + r.size();
    }

    private static void checkAscendingAfter(TimelineBlock block, byte[] after) {
        byte[] previous = after;
        for (int i = 0; i < block.size(); i++) {
            byte[] s = block.entry(i).sequence();
            if (previous != null && SequenceCodec.compare(previous, s) >= 0) {
                throw new AssertionError("entries out of order or overlapping the previous block");
            }
            previous = s;
        }
    }

    OperatorSubtaskState snapshot() throws Exception {
        checkpoint++;
        harness.prepareSnapshotPreBarrier(checkpoint); // as a task does before its barrier
        return harness.snapshot(checkpoint, checkpoint);
    }

    /** Reads of hot state the write-back cache answered (0 without a cache). */
    long stateCacheHits() {
        return function.stateCache() == null ? 0 : function.stateCache().hits();
    }

    /** Reads of hot state that went to keyed state through the write-back cache. */
    long stateCacheMisses() {
        return function.stateCache() == null ? 0 : function.stateCache().misses();
    }

    /** Processing-time timers pending, over all keys. */
    int processingTimers() {
        return harness.numProcessingTimeTimers();
    }

    void setProcessingTime(long time) throws Exception {
        harness.setProcessingTime(time);
    }

    /** How many keys have an entry in any of the engine's states (works on every backend). */
    long keysWithState() throws Exception {
        function.flushCache(); // the state as a checkpoint would see it
        var backend = harness.getOperator().getKeyedStateBackend();
        long n = 0;
        for (String state :
                List.of(
                        StateNames.SCD1_EVENTS,
                        StateNames.SCD2_RECENT,
                        StateNames.SCD2_BLOCKS,
                        StateNames.BITEMPORAL_HEAD,
                        StateNames.BITEMPORAL_RECENT,
                        StateNames.BITEMPORAL_BLOCKS,
                        StateNames.BITEMPORAL_SNAPSHOT,
                        StateNames.TOMBSTONE_EXPIRY,
                        StateNames.HISTORY_FLOOR,
                        StateNames.HISTORY_PRUNE_AT)) {
            try (var keys = backend.getKeys(state, VoidNamespace.INSTANCE)) {
                n += keys.count();
            } catch (RuntimeException notRegistered) {
                // the state does not exist for this target type
            }
        }
        return n;
    }

    AutoCdcFunction function() {
        return function;
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }

    /** One changelog row. */
    record Change(RowKind kind, Object[] values) {
        @Override
        public String toString() {
            return kind.shortString() + Arrays.deepToString(values);
        }
    }
}
