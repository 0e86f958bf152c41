package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.AutoCdc;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
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
 * AUTO_CDC emits, key by key, the same changelog as the job's operator ({@link AutoCdc#apply}) on
 * the same events: random histories of up to 25 events per key (late events, duplicates and ties of
 * sequence, deletes, null values, bitemporal corrections and system-time disorder), for every
 * target type, on the heap and RocksDB backends (25 events fill several SCD2 blocks). The job
 * side's spec is written here by hand, not derived from the function's plan; the function's output
 * (PARTITION BY columns first) is compared with the job's target rows in that order.
 */
class AutoCdcMatchesTheJobTest {
    private static final int KEYS = 40;

    /** (id INT, v STRING, seq INT, sys INT, is_delete BOOLEAN), PARTITION BY id. */
    private static final Shape SIMPLE =
            new Shape(
                    new String[] {"id", "v", "seq", "sys", "is_delete"},
                    1,
                    "id",
                    "except_column_list => DESCRIPTOR(seq, sys, is_delete)",
                    b -> b,
                    new int[] {0, 1});

    /**
     * (v1 STRING, k2 INT, seq INT, k1 STRING, v2 INT, is_delete BOOLEAN), PARTITION BY k1, k2: keys
     * neither first nor in input order, the sequence column kept in the target, IGNORE NULL UPDATES
     * and TRACK HISTORY ON (v1).
     */
    private static final Shape RICH =
            new Shape(
                    new String[] {"v1", "k2", "seq", "k1", "v2", "is_delete"},
                    2,
                    "k1, k2",
                    "except_column_list => DESCRIPTOR(is_delete), ignore_null_updates => TRUE,"
                            + " track_history_column_list => DESCRIPTOR(v1)",
                    b -> b.sequenceColumns("seq").ignoreNullUpdates().trackHistoryOn(List.of("v1")),
                    new int[] {3, 1, 0, 2, 4});

    /** RICH's shape with IGNORE NULL UPDATES ON (v2) alone, as a DESCRIPTOR list. */
    private static final Shape RICH_IGNORE_ON =
            new Shape(
                    RICH.columns,
                    2,
                    "k1, k2",
                    "except_column_list => DESCRIPTOR(is_delete),"
                            + " ignore_null_updates_column_list => DESCRIPTOR(v2)",
                    b -> b.sequenceColumns("seq").ignoreNullUpdatesOn(List.of("v2")),
                    RICH.outputOrder);

    @Test
    void scdType1OnHeap() throws Exception {
        compare(SIMPLE, TargetType.SCD1, "hashmap", 11);
    }

    @Test
    void scdType2OnRocksDb() throws Exception {
        compare(SIMPLE, TargetType.SCD2, "rocksdb", 12);
    }

    @Test
    void bitemporalOnRocksDb() throws Exception {
        compare(SIMPLE, TargetType.BITEMPORAL, "rocksdb", 13);
    }

    @Test
    void compositeKeysInAnotherOrderWithTheFlowOptionsOnRocksDb() throws Exception {
        compare(RICH, TargetType.SCD2, "rocksdb", 14);
    }

    @Test
    void ignoreNullUpdatesOnAColumnListOnHeap() throws Exception {
        compare(RICH_IGNORE_ON, TargetType.SCD1, "hashmap", 15);
    }

    private void compare(Shape shape, TargetType type, String backend, long seed) throws Exception {
        List<Object[]> events = shape.events(type, new Random(seed));
        Map<String, List<String>> function = viaFunction(shape, type, backend, events);
        Map<String, List<String>> job = viaJob(shape, type, backend, events);
        assertThat(function.keySet()).hasSizeGreaterThan(KEYS / 2);
        assertThat(function.values().stream().mapToInt(List::size).sum())
                .as("changes")
                .isGreaterThan(KEYS * 2);
        assertThat(function).isEqualTo(job);
    }

    private static StreamExecutionEnvironment env(String backend) {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", backend);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        return env;
    }

    private static Map<String, List<String>> viaFunction(
            Shape shape, TargetType type, String backend, List<Object[]> events) throws Exception {
        StreamExecutionEnvironment env = env(backend);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.executeSql("CREATE FUNCTION AUTO_CDC AS 'dev.autocdc.udfs.AutoCdcTableFunction'");
        List<Row> rows = new ArrayList<>();
        for (Object[] e : events) {
            rows.add(Row.of(e));
        }
        t.createTemporaryView("cdc", env.fromData(rows, shape.rowType()));
        String storedAs =
                type == TargetType.SCD1
                        ? "SCD TYPE 1"
                        : type == TargetType.SCD2 ? "SCD TYPE 2" : "BITEMPORAL";
        String partitionBy =
                shape.keyCount == 1 ? shape.partitionBy : "(" + shape.partitionBy + ")";
        String sql =
                "SELECT * FROM AUTO_CDC(input => TABLE cdc PARTITION BY "
                        + partitionBy
                        + ", sequence_by => DESCRIPTOR(seq), stored_as => '"
                        + storedAs
                        + "', apply_as_deletes => 'is_delete', "
                        + (type == TargetType.BITEMPORAL
                                ? "system_sequence_by => DESCRIPTOR(sys), "
                                : "")
                        + shape.arguments
                        + ")";
        Map<String, List<String>> out = new TreeMap<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(
                    r -> {
                        List<Object> values = new ArrayList<>();
                        for (int i = 0; i < r.getArity(); i++) {
                            values.add(r.getField(i));
                        }
                        shape.add(out, r.getKind().shortString(), values);
                    });
        }
        return out;
    }

    private static Map<String, List<String>> viaJob(
            Shape shape, TargetType type, String backend, List<Object[]> events) throws Exception {
        StreamExecutionEnvironment env = env(backend);
        boolean bitemporal = type == TargetType.BITEMPORAL;
        List<RowType.RowField> fields = new ArrayList<>();
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < shape.columns.length; i++) {
            String c = shape.columns[i];
            boolean control =
                    c.equals("is_delete")
                            || (shape == SIMPLE && (c.equals("seq") || c.equals("sys")));
            if (!control) {
                fields.add(new RowType.RowField(c, shape.logicalType(c)));
                kept.add(i);
            }
        }
        int seq = List.of(shape.columns).indexOf("seq");
        int sys = List.of(shape.columns).indexOf("sys");
        int delete = List.of(shape.columns).indexOf("is_delete");
        fields.add(new RowType.RowField(ControlColumn.SEQUENCE.columnName(), new IntType()));
        if (bitemporal) {
            fields.add(
                    new RowType.RowField(
                            ControlColumn.SYSTEM_SEQUENCE.columnName(), new IntType()));
        }
        fields.add(new RowType.RowField(ControlColumn.DELETE.columnName(), new BooleanType()));
        RowType inputType = new RowType(fields);
        EngineSpec spec =
                shape.options
                        .apply(
                                EngineSpec.builder("job", type, inputType)
                                        .keys(List.of(shape.partitionBy.split(",\\s*")))
                                        .outputMode(OutputMode.RETRACT)
                                        .tombstoneRetention(null))
                        .build();
        List<RowData> rows = new ArrayList<>();
        for (Object[] e : events) {
            GenericRowData r = new GenericRowData(fields.size());
            int f = 0;
            for (int k : kept) {
                r.setField(
                        f++, e[k] instanceof String ? StringData.fromString((String) e[k]) : e[k]);
            }
            r.setField(f++, e[seq]);
            if (bitemporal) {
                r.setField(f++, e[sys]);
            }
            r.setField(f, e[delete]);
            rows.add(r);
        }
        DataStream<RowData> input = env.fromData(rows, InternalTypeInfo.of(inputType));
        TypeInformation<RowData> outputType = InternalTypeInfo.of(spec.targetType());
        List<LogicalType> targetTypes = spec.targetType().getChildren();
        Map<String, List<String>> out = new TreeMap<>();
        try (CloseableIterator<RowData> it =
                AutoCdc.apply(input, spec, outputType, "auto-cdc").executeAndCollect()) {
            it.forEachRemaining(
                    r -> {
                        List<Object> target = new ArrayList<>();
                        for (int i = 0; i < r.getArity(); i++) {
                            Object v =
                                    RowData.createFieldGetter(targetTypes.get(i), i)
                                            .getFieldOrNull(r);
                            target.add(v instanceof StringData ? v.toString() : v);
                        }
                        // the function's order: the PARTITION BY columns, then the others as in the
                        // target
                        List<Object> values = new ArrayList<>();
                        for (int p : shape.outputOrder) {
                            values.add(target.get(p));
                        }
                        for (int i = shape.outputOrder.length; i < target.size(); i++) {
                            values.add(target.get(i));
                        }
                        shape.add(out, r.getRowKind().shortString(), values);
                    });
        }
        return out;
    }

    /**
     * An input layout: its columns (INT unless named v, v1 or k1, which are STRING, and is_delete),
     * how many lead the output as PARTITION BY columns, the call's extra arguments, the same
     * options for the job's spec, and the order of the job's base columns in the function's output.
     */
    private record Shape(
            String[] columns,
            int keyCount,
            String partitionBy,
            String arguments,
            UnaryOperator<EngineSpec.Builder> options,
            int[] outputOrder) {

        LogicalType logicalType(String column) {
            return isString(column)
                    ? new VarCharType(VarCharType.MAX_LENGTH)
                    : column.equals("is_delete") ? new BooleanType() : new IntType();
        }

        private static boolean isString(String column) {
            return column.equals("v") || column.equals("v1") || column.equals("k1");
        }

        TypeInformation<Row> rowType() {
            TypeInformation<?>[] types = new TypeInformation<?>[columns.length];
            for (int i = 0; i < columns.length; i++) {
                types[i] =
                        isString(columns[i])
                                ? Types.STRING
                                : columns[i].equals("is_delete") ? Types.BOOLEAN : Types.INT;
            }
            return Types.ROW_NAMED(columns, types);
        }

        /** Random histories, shuffled: every key's events arrive in a random order. */
        List<Object[]> events(TargetType type, Random random) {
            List<Object[]> events = new ArrayList<>();
            for (int key = 0; key < KEYS; key++) {
                int n = 1 + random.nextInt(25);
                for (int i = 0; i < n; i++) {
                    Object[] e = new Object[columns.length];
                    for (int c = 0; c < columns.length; c++) {
                        switch (columns[c]) {
                            case "id", "k2" -> e[c] = key;
                            case "k1" -> e[c] = "k" + (key % 7);
                            case "seq" ->
                                    e[c] = random.nextInt(type == TargetType.BITEMPORAL ? 10 : 30);
                            case "sys" -> e[c] = random.nextInt(30);
                            case "is_delete" -> e[c] = random.nextInt(8) == 0;
                            case "v2" -> e[c] = random.nextInt(5) == 0 ? null : random.nextInt(3);
                            default ->
                                    e[c] = random.nextInt(6) == 0 ? null : "v" + random.nextInt(4);
                        }
                    }
                    events.add(e);
                }
            }
            Collections.shuffle(events, random);
            return events;
        }

        void add(Map<String, List<String>> out, String kind, List<Object> values) {
            StringBuilder text = new StringBuilder(kind).append(' ');
            for (int i = 0; i < values.size(); i++) {
                text.append(i == 0 ? "" : "/").append(values.get(i));
            }
            out.computeIfAbsent(values.subList(0, keyCount).toString(), k -> new ArrayList<>())
                    .add(text.toString());
        }
    }
}
