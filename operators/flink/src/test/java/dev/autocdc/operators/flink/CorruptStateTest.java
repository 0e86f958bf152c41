package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.RecentEntriesSerializer;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.TimelineBlock;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.Collector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A state value whose bytes do not decode stops the job with a message that names the flow, the key
 * and where in the key's history (the sequence), instead of a bare decoding error.
 */
class CorruptStateTest {

    private static EngineSpec spec() {
        return EngineSpec.builder(
                        "orders",
                        TargetType.SCD2,
                        RowType.of(
                                new LogicalType[] {
                                    new IntType(),
                                    VarCharType.STRING_TYPE,
                                    new IntType(false),
                                    new BooleanType()
                                },
                                new String[] {"id", "v", "__seq", "__delete"}))
                .keys("id")
                .build();
    }

    /**
     * Stores, for its key, recent entries whose one entry is not an entry, linked to an older
     * block.
     */
    static final class CorruptWriter extends KeyedProcessFunction<Object, RowData, RowData> {
        private final EngineSpec spec;
        private transient ValueState<TimelineBlock> recent;

        CorruptWriter(EngineSpec spec) {
            this.spec = spec;
        }

        @Override
        public void open(OpenContext context) {
            recent =
                    getRuntimeContext()
                            .getState(
                                    new ValueStateDescriptor<>(
                                            StateNames.SCD2_RECENT,
                                            new RecentEntriesSerializer(
                                                    spec.flow().columnTypes(),
                                                    RecentEntriesSerializer.VERSION)));
        }

        @Override
        public void processElement(RowData row, Context ctx, Collector<RowData> out)
                throws Exception {
            byte[] older = spec.flow().sequenceCodec().encode(3);
            recent.update(
                    TimelineBlock.stored(
                            new StateCodec(spec.flow().columnTypes()),
                            new byte[][] {{(byte) 0xff, (byte) 0xff, (byte) 0xff}},
                            older,
                            null,
                            null));
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCorruptEntryStopsTheJobNamingTheFlowTheKeyAndTheSequence(Backend backend)
            throws Exception {
        EngineSpec spec = spec();
        FlowKeySelector keys = new FlowKeySelector(spec);
        OperatorSubtaskState state;
        try (KeyedOneInputStreamOperatorTestHarness<Object, RowData, RowData> writer =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new CorruptWriter(spec)),
                        keys,
                        keys.getProducedType())) {
            writer.setStateBackend(backend.create());
            writer.open();
            writer.processElement(
                    new StreamRecord<>(
                            GenericRowData.of(7, StringData.fromString("a"), 5, false), 0L));
            state = writer.snapshot(1, 1);
        }
        try (OperatorRun run = OperatorRun.restore(spec, backend, state)) {
            run.process(run.input(8, "b", 5, false)); // another key is unaffected
            assertThatThrownBy(() -> run.process(run.input(7, "b", 9, false)))
                    .hasMessageContaining("AUTO CDC flow orders, key [7]")
                    .hasMessageContaining(
                            "entry 1 of 1 of a block after sequence 0x80000003 does not decode");
        }
    }
}
