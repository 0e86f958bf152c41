package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.AutoCdc;
import dev.autocdc.operators.flink.EngineSpec;
import dev.autocdc.operators.flink.OutputMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * AUTO_CDC emits, key by key, the same changelog as the job's operator ({@link AutoCdc#apply}) on the same
 * events: random histories (late events, duplicates and ties of sequence, deletes, null values, bitemporal
 * corrections and system-time disorder) for every target type. The job side's spec is written here by
 * hand, not derived from the function's plan.
 */
class AutoCdcMatchesTheJobTest {
    private static final int KEYS = 40;

    @Test
    void scdType1() throws Exception {
        compare(TargetType.SCD1, 11);
    }

    @Test
    void scdType2() throws Exception {
        compare(TargetType.SCD2, 12);
    }

    @Test
    void bitemporal() throws Exception {
        compare(TargetType.BITEMPORAL, 13);
    }

    private void compare(TargetType type, long seed) throws Exception {
        List<Object[]> events = events(type, new Random(seed));
        Map<Integer, List<String>> function = viaFunction(type, events);
        Map<Integer, List<String>> job = viaJob(type, events);
        assertThat(function.keySet()).hasSizeGreaterThan(KEYS / 2);
        assertThat(function).isEqualTo(job);
    }

    /** (id, v, seq, sys, is_delete), shuffled: every key's events arrive in a random order. */
    private static List<Object[]> events(TargetType type, Random random) {
        List<Object[]> events = new ArrayList<>();
        for (int id = 0; id < KEYS; id++) {
            int n = 1 + random.nextInt(12);
            for (int i = 0; i < n; i++) {
                String v = random.nextInt(6) == 0 ? null : "v" + random.nextInt(4);
                int seq = random.nextInt(type == TargetType.BITEMPORAL ? 8 : 15);
                int sys = random.nextInt(20);
                events.add(new Object[] {id, v, seq, sys, random.nextInt(8) == 0});
            }
        }
        Collections.shuffle(events, random);
        return events;
    }

    private static Map<Integer, List<String>> viaFunction(TargetType type, List<Object[]> events) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.executeSql("CREATE FUNCTION AUTO_CDC AS 'dev.autocdc.udfs.AutoCdcTableFunction'");
        List<Row> rows = new ArrayList<>();
        for (Object[] e : events) {
            rows.add(Row.of(e));
        }
        DataStream<Row> input = env.fromData(rows, Types.ROW_NAMED(new String[] {"id", "v", "seq", "sys", "is_delete"},
                Types.INT, Types.STRING, Types.INT, Types.INT, Types.BOOLEAN));
        t.createTemporaryView("cdc", input);
        String storedAs = type == TargetType.SCD1 ? "SCD TYPE 1" : type == TargetType.SCD2 ? "SCD TYPE 2" : "BITEMPORAL";
        String sql = "SELECT * FROM AUTO_CDC(input => TABLE cdc PARTITION BY id, sequence_by => 'seq', stored_as => '"
                + storedAs + "', apply_as_deletes => 'is_delete', "
                + (type == TargetType.BITEMPORAL ? "system_sequence_by => 'sys', except_column_list => 'seq, sys, is_delete')"
                        : "except_column_list => 'seq, sys, is_delete')");
        Map<Integer, List<String>> out = new TreeMap<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.computeIfAbsent((Integer) r.getField(0), k -> new ArrayList<>())
                    .add(r.getKind().shortString() + " " + Changelog.fields(r)));
        }
        return out;
    }

    private static Map<Integer, List<String>> viaJob(TargetType type, List<Object[]> events) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        boolean bitemporal = type == TargetType.BITEMPORAL;
        List<RowType.RowField> fields = new ArrayList<>(List.of(
                new RowType.RowField("id", new IntType()),
                new RowType.RowField("v", new VarCharType(VarCharType.MAX_LENGTH)),
                new RowType.RowField(EngineSpec.SEQUENCE, new IntType())));
        if (bitemporal) {
            fields.add(new RowType.RowField(EngineSpec.SYSTEM_SEQUENCE, new IntType()));
        }
        fields.add(new RowType.RowField(EngineSpec.DELETE, new BooleanType()));
        RowType inputType = new RowType(fields);
        EngineSpec spec = EngineSpec.builder("job", type, inputType).keys("id").outputMode(OutputMode.RETRACT)
                .tombstoneRetention(null).build();
        List<RowData> rows = new ArrayList<>();
        for (Object[] e : events) {
            GenericRowData r = new GenericRowData(bitemporal ? 5 : 4);
            int f = 0;
            r.setField(f++, e[0]);
            r.setField(f++, e[1] == null ? null : StringData.fromString((String) e[1]));
            r.setField(f++, e[2]);
            if (bitemporal) {
                r.setField(f++, e[3]);
            }
            r.setField(f, e[4]);
            rows.add(r);
        }
        DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(inputType));
        TypeInformation<RowData> outputType = InternalTypeInfo.of(spec.targetType());
        List<LogicalType> targetTypes = spec.targetType().getChildren();
        Map<Integer, List<String>> out = new TreeMap<>();
        try (CloseableIterator<RowData> it = AutoCdc.apply(input, spec, outputType, "auto-cdc").executeAndCollect()) {
            it.forEachRemaining(r -> {
                StringBuilder b = new StringBuilder(r.getRowKind().shortString()).append(' ');
                for (int i = 0; i < r.getArity(); i++) {
                    Object value = RowData.createFieldGetter(targetTypes.get(i), i).getFieldOrNull(r);
                    b.append(i == 0 ? "" : "/").append(value);
                }
                out.computeIfAbsent(r.getInt(0), k -> new ArrayList<>()).add(b.toString());
            });
        }
        return out;
    }
}
