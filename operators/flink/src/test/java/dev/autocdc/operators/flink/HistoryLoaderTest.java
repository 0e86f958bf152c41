package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.InvalidHistoryException;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.spec.TypeMapping;
import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link HistoryLoader} in a keyed operator on RocksDB: for random events E1, the table the engine
 * made of them is loaded into fresh state, the state is snapshotted and restored into the AUTO CDC
 * function, and events E2 after every sequence of E1 are applied: the table (E1's, then E2's
 * changelog) equals the reference over E1 + E2, and every retraction of E2's changelog finds its
 * row.
 */
class HistoryLoaderTest {
    private static final int CUTOVER = 10;

    @ParameterizedTest
    @EnumSource(TargetType.class)
    void aLoadedTableGoesOnAsTheEventsThatMadeIt(TargetType type) throws Exception {
        Random random = new Random(41 + type.ordinal());
        int rows = 0;
        for (int round = 0; round < 25; round++) {
            boolean ignoreNull = type != TargetType.BITEMPORAL && round % 2 == 1;
            EngineSpec spec = spec(type, ignoreNull);
            List<ReferenceModel.Event> past = randomEvents(random, type, 0);
            List<ReferenceModel.Event> later = randomEvents(random, type, CUTOVER);
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            try (OperatorRun run = OperatorRun.start(spec, Backend.ROCKSDB)) {
                for (ReferenceModel.Event e : past) {
                    run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
                }
                table.apply(run.newOutput());
            }
            rows += table.rows().size();
            OperatorSubtaskState loaded = load(spec, table.rows());
            try (OperatorRun run = OperatorRun.restore(spec, Backend.ROCKSDB, loaded)) {
                for (ReferenceModel.Event e : later) {
                    run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
                }
                table.apply(run.newOutput());
                assertThat(run.deadLetters()).isEmpty();
            }
            List<ReferenceModel.Event> all = new ArrayList<>(past);
            all.addAll(later);
            assertThat(table.rows())
                    .as(type + " E1 " + past + " E2 " + later)
                    .isEqualTo(TwoValueFlows.reference(type, ignoreNull, all));
        }
        assertThat(rows).isGreaterThan(50);
    }

    /**
     * A late event (at or before the stored history's newest sequence) applies as if each stored
     * row had been made by one event at its start, and each end without a next row by a delete
     * there (type 1: one event at --as-of): the history keeps what its rows show, not the events
     * that left no trace in them.
     */
    @ParameterizedTest
    @EnumSource(
            value = TargetType.class,
            names = {"SCD1", "SCD2"})
    void aLateEventAppliesAsIfEachRowWasMadeByOneEvent(TargetType type) throws Exception {
        Random random = new Random(77 + type.ordinal());
        for (int round = 0; round < 25; round++) {
            boolean ignoreNull = round % 2 == 1;
            EngineSpec spec = spec(type, ignoreNull);
            List<ReferenceModel.Event> past = randomEvents(random, type, 0);
            List<ReferenceModel.Event> later = randomEvents(random, type, random.nextInt(CUTOVER));
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            try (OperatorRun run = OperatorRun.start(spec, Backend.ROCKSDB)) {
                for (ReferenceModel.Event e : past) {
                    run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
                }
                table.apply(run.newOutput());
            }
            List<ReferenceModel.Event> stored = storedAsEvents(type, table.rows());
            OperatorSubtaskState loaded = load(spec, table.rows());
            try (OperatorRun run = OperatorRun.restore(spec, Backend.ROCKSDB, loaded)) {
                for (ReferenceModel.Event e : later) {
                    run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
                }
                table.apply(run.newOutput());
            }
            stored.addAll(later);
            assertThat(table.rows())
                    .as(type + " E1 " + past + " E2 " + later)
                    .isEqualTo(TwoValueFlows.reference(type, ignoreNull, stored));
        }
    }

    /**
     * The stored rows as events, typed from semantics §3-4: an upsert per row, a delete per lone
     * end.
     */
    private static List<ReferenceModel.Event> storedAsEvents(
            TargetType type, Set<List<Object>> rows) {
        List<ReferenceModel.Event> events = new ArrayList<>();
        for (List<Object> r : rows) {
            List<Object> values = Arrays.asList(r.get(1), r.get(2));
            if (type == TargetType.SCD1) {
                events.add(event(r.get(0), CUTOVER, ReferenceModel.Kind.UPSERT, values));
                continue;
            }
            events.add(event(r.get(0), (Integer) r.get(3), ReferenceModel.Kind.UPSERT, values));
            Integer end = (Integer) r.get(4);
            boolean next =
                    rows.stream()
                            .anyMatch(
                                    o ->
                                            o.get(0).equals(r.get(0))
                                                    && end != null
                                                    && end.equals(o.get(3)));
            if (end != null && !next) {
                events.add(
                        event(
                                r.get(0),
                                end,
                                ReferenceModel.Kind.DELETE,
                                Arrays.asList(null, null)));
            }
        }
        return events;
    }

    private static ReferenceModel.Event event(
            Object key, int seq, ReferenceModel.Kind kind, List<Object> values) {
        return new ReferenceModel.Event(key, seq, null, kind, values, null);
    }

    @Test
    void anOverlapIsRefusedNamingTheRow() {
        EngineSpec spec = spec(TargetType.SCD2, false);
        List<List<Object>> rows =
                List.of(Arrays.asList(1, "a", null, 1, 4), Arrays.asList(1, "b", null, 3, null));
        assertThatThrownBy(() -> load(spec, rows))
                .isInstanceOf(InvalidHistoryException.class)
                .hasMessage(
                        "not a valid history at row [1, b, null] [3, open): it overlaps [1, a,"
                                + " null] [1, 4)");
    }

    /** The rows loaded key by key into a fresh operator, and its snapshot. */
    private static OperatorSubtaskState load(EngineSpec spec, Iterable<List<Object>> rows)
            throws Exception {
        RowType type = HistoryLoader.historyType(spec);
        Map<Object, List<RowData>> byKey = new LinkedHashMap<>();
        for (List<Object> r : rows) {
            List<Object> values = new ArrayList<>(r);
            if (spec.flow().targetType() == TargetType.SCD1) {
                values.add(CUTOVER); // the row's sequence (--as-of)
            }
            GenericRowData row = new GenericRowData(values.size());
            for (int i = 0; i < values.size(); i++) {
                row.setField(i, TypeMapping.toInternal(type.getTypeAt(i), values.get(i)));
            }
            byKey.computeIfAbsent(r.get(0), k -> new ArrayList<>()).add(row);
        }
        FlowKeySelector keys = HistoryLoader.keySelector(spec);
        try (var harness =
                new KeyedOneInputStreamOperatorTestHarness<Object, List<RowData>, RowData>(
                        new KeyedProcessOperator<>(new Host(new HistoryLoader(spec))),
                        list -> keys.getKey(list.get(0)),
                        keys.getProducedType())) {
            harness.setStateBackend(Backend.ROCKSDB.create());
            harness.open();
            for (List<RowData> key : byKey.values()) {
                harness.processElement(new StreamRecord<>(key, 0L));
            }
            assertThat(harness.extractOutputValues()).isEmpty();
            return harness.snapshot(1, 1);
        }
    }

    /** A keyed host of the loader, as the bootstrap job's state processor function is. */
    private static final class Host extends KeyedProcessFunction<Object, List<RowData>, RowData>
            implements CheckpointedFunction {
        private final HistoryLoader loader;

        Host(HistoryLoader loader) {
            this.loader = loader;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            loader.initializeShape(context);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext context) {
            loader.open(getRuntimeContext());
        }

        @Override
        public void processElement(List<RowData> rows, Context ctx, Collector<RowData> out)
                throws Exception {
            loader.load(rows, ctx.timerService());
        }
    }

    private static EngineSpec spec(TargetType type, boolean ignoreNull) {
        EngineSpec.Builder b = TwoValueFlows.builder("history", type, false);
        if (ignoreNull) {
            b.ignoreNullUpdates();
        }
        return b.build();
    }

    /** Events over 3 keys, sequences (and system sequences) in shift+1..shift+10. */
    private static List<ReferenceModel.Event> randomEvents(
            Random random, TargetType type, int shift) {
        String[] domain = {"a", "b", null};
        List<ReferenceModel.Event> events = new ArrayList<>();
        int n = 5 + random.nextInt(30);
        for (int i = 0; i < n; i++) {
            events.add(
                    new ReferenceModel.Event(
                            1 + random.nextInt(3),
                            shift + 1 + random.nextInt(10),
                            type == TargetType.BITEMPORAL ? shift + 1 + random.nextInt(10) : null,
                            random.nextInt(6) == 0
                                    ? ReferenceModel.Kind.DELETE
                                    : ReferenceModel.Kind.UPSERT,
                            Arrays.asList(domain[random.nextInt(3)], domain[random.nextInt(3)]),
                            null));
        }
        return events;
    }
}
