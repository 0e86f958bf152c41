package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.flink.runtime.AutoCdcProcessor;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.dataview.MapView;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * The engine's states on a PTF's map views: exact round trips, separate names, and the layout
 * fingerprint.
 */
class ViewStatesTest {

    @Test
    void valuesAndMapEntriesRoundTripUnderTheirOwnNames() throws Exception {
        MapView<String, byte[]> values = new MapView<>();
        MapView<String, byte[]> maps = new MapView<>();
        ViewStates states = new ViewStates(new UnregisteredMetricsGroup(), "layout A");
        states.bind(values, maps);
        ValueState<Long> a =
                states.getState(new ValueStateDescriptor<>("a", LongSerializer.INSTANCE));
        ValueState<Long> b =
                states.getState(new ValueStateDescriptor<>("b", LongSerializer.INSTANCE));
        a.update(7L);
        assertThat(a.value()).isEqualTo(7L);
        assertThat(b.value()).isNull();
        a.clear();
        assertThat(a.value()).isNull();

        MapState<byte[], String> m =
                states.getMapState(
                        new MapStateDescriptor<>(
                                "m",
                                BytePrimitiveArraySerializer.INSTANCE,
                                StringSerializer.INSTANCE));
        MapState<byte[], String> other =
                states.getMapState(
                        new MapStateDescriptor<>(
                                "m2",
                                BytePrimitiveArraySerializer.INSTANCE,
                                StringSerializer.INSTANCE));
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 256; i++) {
            byte[] key = {(byte) i, (byte) (255 - i)}; // every byte value, as a key
            m.put(key, "v" + i);
            expected.put(i + "," + (255 - i), "v" + i);
        }
        other.put(new byte[] {1}, "elsewhere");
        Map<String, String> read = new HashMap<>();
        for (Map.Entry<byte[], String> e : m.entries()) {
            read.put((e.getKey()[0] & 0xFF) + "," + (e.getKey()[1] & 0xFF), e.getValue());
        }
        assertThat(read).isEqualTo(expected);
        assertThat(m.get(new byte[] {(byte) 200, (byte) 55})).isEqualTo("v200");
        m.clear();
        assertThat(m.isEmpty()).isTrue();
        assertThat(other.get(new byte[] {1})).isEqualTo("elsewhere");
    }

    @Test
    void stateWrittenForAnotherLayoutFailsItsFirstReadSayingWhy() throws Exception {
        MapView<String, byte[]> values = new MapView<>();
        MapView<String, byte[]> maps = new MapView<>();
        ViewStates before =
                new ViewStates(
                        new UnregisteredMetricsGroup(), "SCD2, columns [id, v] [INT, STRING]");
        before.bind(values, maps);
        before.getState(new ValueStateDescriptor<>("a", LongSerializer.INSTANCE)).update(1L);

        ViewStates after =
                new ViewStates(
                        new UnregisteredMetricsGroup(),
                        "SCD2, columns [id, v, w] [INT, STRING, INT]");
        after.bind(values, maps);
        assertThatThrownBy(
                        () ->
                                after.getState(
                                                new ValueStateDescriptor<>(
                                                        "a", LongSerializer.INSTANCE))
                                        .value())
                .hasStackTraceContaining(
                        "The state restored for this AUTO_CDC call was written by another flow"
                                + " definition")
                .hasStackTraceContaining("SCD2, columns [id, v, w] [INT, STRING, INT]");
    }

    /**
     * A call whose input gained a nullable column after the last one reads the values stored before
     * with null in it (the job's restore rule, {@code SchemaChangeTest}): here a late event splits
     * a version stored before the column existed.
     */
    @Test
    void valuesStoredBeforeAColumnWasAddedReadItAsNull() throws Exception {
        AutoCdcArguments args = new AutoCdcArguments();
        args.sequenceBy = List.of("seq");
        args.storedAs = "SCD TYPE 2";
        LogicalType string = VarCharType.STRING_TYPE;
        AutoCdcPlan narrow =
                AutoCdcPlan.of(
                        "AUTO_CDC",
                        RowType.of(
                                new LogicalType[] {new IntType(), string, new IntType()},
                                new String[] {"id", "v", "seq"}),
                        new int[] {0},
                        args,
                        OutputMode.RETRACT);
        AutoCdcPlan wide =
                AutoCdcPlan.of(
                        "AUTO_CDC",
                        RowType.of(
                                new LogicalType[] {new IntType(), string, new IntType(), string},
                                new String[] {"id", "v", "seq", "w"}),
                        new int[] {0},
                        args,
                        OutputMode.RETRACT);
        assertThat(wide.earlierLayouts())
                .containsEntry(narrow.stateLayout().hashCode(), 3)
                .hasSize(3);
        MapView<String, byte[]> values = new MapView<>();
        MapView<String, byte[]> maps = new MapView<>();
        ViewStates before = new ViewStates(new UnregisteredMetricsGroup(), narrow.stateLayout());
        before.bind(values, maps);
        AutoCdcProcessor first = new AutoCdcProcessor(narrow.spec());
        first.open(before);
        List<String> out = new ArrayList<>();
        first.process(
                narrow.engineInput(GenericRowData.of(1, StringData.fromString("a"), 1), null),
                collector(narrow, out),
                d -> out.add("dead letter " + d.reason));
        first.process(
                narrow.engineInput(GenericRowData.of(1, StringData.fromString("b"), 3), null),
                collector(narrow, out),
                d -> out.add("dead letter " + d.reason));
        assertThat(out)
                .containsExactly(
                        "+I(a,1,1,null)", "-U(a,1,1,null)", "+U(a,1,1,3)", "+I(b,3,3,null)");
        out.clear();

        ViewStates after =
                new ViewStates(
                        new UnregisteredMetricsGroup(), wide.stateLayout(), wide.earlierLayouts());
        after.bind(values, maps);
        AutoCdcProcessor second = new AutoCdcProcessor(wide.spec());
        second.open(after);
        second.process(
                wide.engineInput(
                        GenericRowData.of(
                                1, StringData.fromString("c"), 2, StringData.fromString("W")),
                        null),
                collector(wide, out),
                d -> out.add("dead letter " + d.reason));
        assertThat(out)
                .containsExactlyInAnyOrder("-U(a,1,null,1,3)", "+U(a,1,null,1,2)", "+I(c,2,W,2,3)");
    }

    private static Collector<RowData> collector(AutoCdcPlan plan, List<String> out) {
        return new Collector<>() {
            @Override
            public void collect(RowData target) {
                out.add(plan.output(target).toString());
            }

            @Override
            public void close() {}
        };
    }
}
