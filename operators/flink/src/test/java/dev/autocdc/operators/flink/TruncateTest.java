package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.OperatorRun.Change;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.spec.TypeMapping;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.reference.ReferenceModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * APPLY AS TRUNCATE WHEN (SCD type 1): a truncate deletes every key at its sequence, present keys
 * and keys seen later, on every parallel instance, whatever the order in which the broadcast and
 * the keyed inputs arrive.
 */
class TruncateTest {

    static final RowType INPUT =
            RowType.of(
                    new LogicalType[] {
                        new IntType(),
                        VarCharType.STRING_TYPE,
                        new IntType(),
                        new BooleanType(),
                        new BooleanType()
                    },
                    new String[] {"id", "v", "__seq", "__delete", "__truncate"});

    static EngineSpec spec() {
        return EngineSpec.builder("truncating", TargetType.SCD1, INPUT).keys("id").build();
    }

    @Test
    void aTruncateIsRefusedForHistoryTargets() {
        Assertions.assertThatThrownBy(
                        () -> EngineSpec.builder("t", TargetType.SCD2, INPUT).keys("id").build())
                .hasMessageContaining("APPLY AS TRUNCATE WHEN");
    }

    /**
     * Random event sets with truncates, in random orders of the two inputs, against the reference
     * model.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void truncatesApplyToPresentAndLaterKeysInAnyOrder(Backend backend) throws Exception {
        Random random = new Random(42 + backend.ordinal());
        EngineSpec spec = spec();
        for (int round = 0; round < (backend == Backend.ROCKSDB ? 40 : 150); round++) {
            List<ReferenceModel.Event> events = randomEvents(random);
            Set<List<Object>> expected =
                    ReferenceModel.scd1(events, options()).stream()
                            .map(ArrayList::new)
                            .collect(Collectors.toSet());
            List<ReferenceModel.Event> arrival = new ArrayList<>(events);
            Collections.shuffle(arrival, random);
            ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            try (var harness = harness(spec, backend)) {
                for (ReferenceModel.Event e : arrival) {
                    RowData row = row(e);
                    if (e.kind() == ReferenceModel.Kind.TRUNCATE) {
                        harness.processBroadcastElement(new StreamRecord<>(row, 0L));
                    } else {
                        harness.processElement(new StreamRecord<>(row, 0L));
                    }
                }
                table.apply(changes(spec, harness.extractOutputValues()));
            }
            assertThat(table.rows()).as("arrival " + arrival).isEqualTo(expected);
        }
    }

    /**
     * A deleted key's tombstone timer must not outlive the truncate that cleared the key: once an
     * event brings the key back, the stale timer forgets nothing (the old timer would drop the
     * present row's state, and an older event would then insert the row a second time).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aTruncatedTombstonesTimerDoesNotForgetTheKeyItCameBack(Backend backend) throws Exception {
        EngineSpec spec =
                EngineSpec.builder("truncating", TargetType.SCD1, INPUT)
                        .keys("id")
                        .tombstoneRetention(Duration.ofMillis(300))
                        .build();
        ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
        try (var harness = harness(spec, backend)) {
            harness.setProcessingTime(0);
            harness.processElement(
                    new StreamRecord<>(
                            OperatorRunRows.of(INPUT, new Object[] {1, "a", 1, false, false}), 0L));
            harness.processElement(
                    new StreamRecord<>(
                            OperatorRunRows.of(INPUT, new Object[] {1, null, 5, true, false}), 0L));
            harness.setProcessingTime(50);
            harness.processBroadcastElement(
                    new StreamRecord<>(
                            OperatorRunRows.of(INPUT, new Object[] {null, null, 10, false, true}),
                            0L));
            harness.setProcessingTime(100);
            harness.processElement(
                    new StreamRecord<>(
                            OperatorRunRows.of(INPUT, new Object[] {1, "b", 12, false, false}),
                            0L));
            harness.setProcessingTime(400); // the delete's tombstone would have expired here
            harness.processElement(
                    new StreamRecord<>(
                            OperatorRunRows.of(INPUT, new Object[] {1, "c", 3, false, false}), 0L));
            table.apply(changes(spec, harness.extractOutputValues()));
        }
        assertThat(table.rows()).containsExactly(Arrays.asList(1, "b"));
    }

    /** The wiring of {@link AutoCdc#apply} on a local cluster at parallelism 2. */
    @Test
    void truncateReachesEveryParallelInstance() throws Exception {
        EngineSpec spec = spec();
        List<Object[]> events = new ArrayList<>();
        for (int id = 1; id <= 20; id++) {
            events.add(new Object[] {id, "before", 1, false, false});
        }
        events.add(new Object[] {null, null, 5, false, true});
        for (int id = 11; id <= 30; id++) {
            events.add(new Object[] {id, "after", id % 2 == 0 ? 7 : 3, false, false});
        }
        // expected: keys 1-10 truncated; 11-30: even ids written after the truncate (7 > 5)
        // survive, odd ids (3 < 5) are truncated, whether they arrived before or after the truncate
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", "rocksdb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        List<RowData> rows = new ArrayList<>();
        for (Object[] e : events) {
            rows.add(OperatorRunRows.of(INPUT, e));
        }
        ChangelogTable table = new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
        List<RowData> out = new ArrayList<>();
        try (var it =
                AutoCdc.apply(
                                env.fromData(rows, InternalTypeInfo.of(INPUT)),
                                spec,
                                InternalTypeInfo.of(spec.targetType()),
                                "auto-cdc-truncating")
                        .executeAndCollect()) {
            it.forEachRemaining(out::add);
        }
        // rows of one key come from one instance in order; across keys any interleaving is fine
        table.apply(changes(spec, out));
        List<List<Object>> expected = new ArrayList<>();
        for (int id = 12; id <= 30; id += 2) {
            expected.add(Arrays.asList(id, "after"));
        }
        assertThat(table.rows()).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static KeyedBroadcastOperatorTestHarness<Object, RowData, RowData, RowData> harness(
            EngineSpec spec, Backend backend) throws Exception {
        FlowKeySelector keys = new FlowKeySelector(spec);
        var operator =
                new CoBroadcastWithKeyedOperator<>(
                        new AutoCdcTruncateFunction(spec),
                        List.of(
                                StateDescriptors.truncateFloor(spec.flow().columnTypes()),
                                StateDescriptors.truncateFloorArrival()));
        var harness =
                new KeyedBroadcastOperatorTestHarness<>(
                        operator, keys, keys.getProducedType(), 1, 1, 0);
        harness.setStateBackend(backend.create());
        harness.setup(new RowDataSerializer(spec.targetType()));
        harness.open();
        return harness;
    }

    private static List<Change> changes(EngineSpec spec, List<RowData> rows) {
        RowType target = spec.targetType();
        List<Change> out = new ArrayList<>();
        for (RowData r : rows) {
            Object[] values = new Object[target.getFieldCount()];
            for (int f = 0; f < values.length; f++) {
                LogicalType t = target.getTypeAt(f);
                values[f] =
                        TypeMapping.toJava(t, RowData.createFieldGetter(t, f).getFieldOrNull(r));
            }
            out.add(new Change(r.getRowKind(), values));
        }
        return out;
    }

    private static RowData row(ReferenceModel.Event e) {
        return OperatorRunRows.of(
                INPUT,
                new Object[] {
                    e.key(),
                    e.values().get(0),
                    e.seq(),
                    e.kind() == ReferenceModel.Kind.DELETE,
                    e.kind() == ReferenceModel.Kind.TRUNCATE
                });
    }

    private static ReferenceModel.Options options() {
        return new ReferenceModel.Options(List.of("v"), Set.of(), false, null, null, null);
    }

    private static List<ReferenceModel.Event> randomEvents(Random random) {
        String[] domain = {"a", "b", null};
        List<ReferenceModel.Event> events = new ArrayList<>();
        int n = 3 + random.nextInt(10);
        for (int i = 0; i < n; i++) {
            int roll = random.nextInt(10);
            ReferenceModel.Kind kind =
                    roll < 7
                            ? ReferenceModel.Kind.UPSERT
                            : roll < 8 ? ReferenceModel.Kind.DELETE : ReferenceModel.Kind.TRUNCATE;
            Integer key =
                    kind == ReferenceModel.Kind.TRUNCATE && random.nextBoolean()
                            ? null
                            : 1 + random.nextInt(4);
            events.add(
                    new ReferenceModel.Event(
                            key,
                            1 + random.nextInt(6),
                            null,
                            kind,
                            Arrays.asList(domain[random.nextInt(3)]),
                            null));
        }
        return events;
    }

    /** Input rows from Java values. */
    static final class OperatorRunRows {
        static RowData of(RowType type, Object[] values) {
            GenericRowData row = new GenericRowData(RowKind.INSERT, values.length);
            for (int i = 0; i < values.length; i++) {
                row.setField(i, TypeMapping.toInternal(type.getTypeAt(i), values[i]));
            }
            return row;
        }
    }
}
