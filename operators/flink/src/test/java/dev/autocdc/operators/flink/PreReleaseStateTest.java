package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.Op;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.DescendingSequenceKeySerializer;
import dev.autocdc.operators.flink.state.SequenceKey;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.state.TimelineEntrySerializer;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
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
import org.apache.flink.util.StateMigrationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A savepoint of the pre-release bitemporal layout (every event in the map {@code
 * auto-cdc-bitemporal-events}) must not restore into today's layout as if the keys had no history:
 * the restore fails.
 */
class PreReleaseStateTest {

    private static EngineSpec spec() {
        List<LogicalType> types =
                List.of(
                        new IntType(),
                        VarCharType.STRING_TYPE,
                        new IntType(false),
                        new IntType(false),
                        new BooleanType());
        return EngineSpec.builder(
                        "old",
                        TargetType.BITEMPORAL,
                        RowType.of(
                                types.toArray(new LogicalType[0]),
                                new String[] {"id", "v", "__seq", "__sys", "__delete"}))
                .keys("id")
                .build();
    }

    /** Writes one key's event the way pre-release builds stored bitemporal events. */
    static final class PreReleaseWriter extends KeyedProcessFunction<Object, RowData, RowData> {
        private final EngineSpec spec;
        private transient MapState<SequenceKey, TimelineEntry> events;

        PreReleaseWriter(EngineSpec spec) {
            this.spec = spec;
        }

        @Override
        public void open(OpenContext context) {
            events =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>(
                                            StateNames.LEGACY_BITEMPORAL_EVENTS,
                                            DescendingSequenceKeySerializer.INSTANCE,
                                            new TimelineEntrySerializer(
                                                    spec.flow().columnTypes())));
        }

        @Override
        public void processElement(RowData row, Context ctx, Collector<RowData> out)
                throws Exception {
            byte[] seq = spec.flow().sequenceCodec().encode(row.getInt(2));
            byte[] sys = spec.flow().systemSequenceCodec().encode(row.getInt(3));
            ChangeEvent e =
                    new ChangeEvent(
                            Op.UPSERT,
                            new Object[] {row.getInt(0), row.getString(1).toString()},
                            seq,
                            sys,
                            null);
            events.put(new SequenceKey(seq), new TimelineEntry(seq, List.of(e), null, null));
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aPreReleaseBitemporalSavepointIsRefused(Backend backend) throws Exception {
        EngineSpec spec = spec();
        FlowKeySelector keys = new FlowKeySelector(spec);
        OperatorSubtaskState state;
        try (KeyedOneInputStreamOperatorTestHarness<Object, RowData, RowData> old =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new PreReleaseWriter(spec)),
                        keys,
                        keys.getProducedType())) {
            old.setStateBackend(backend.create());
            old.open();
            old.processElement(
                    new StreamRecord<>(
                            GenericRowData.of(1, StringData.fromString("a"), 1, 10, false), 0L));
            state = old.snapshot(1, 1);
        }
        assertThatThrownBy(
                        () -> {
                            try (OperatorRun run = OperatorRun.restore(spec, backend, state)) {
                                run.process(run.input(1, "b", 2, 20, false));
                            }
                        })
                .hasRootCauseInstanceOf(StateMigrationException.class)
                .hasStackTraceContaining("must not be incompatible with the old state serializer");
    }
}
